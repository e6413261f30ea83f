#!/usr/bin/env node
// main.js -- `npm run stress`: a workload (--workload, default reference;
// stress/workloads/) through the Node addon (or `--via koffi`), judged by the
// kit's monitor.  Flags: `--help` (stress/js/options.js).
//
// V8 flags the driver needs, set at node's start (stress/node/stress.sh
// passes them; started any other way, main.js starts itself again with them,
// same arguments and stdio, and exits with the child's code or signal):
//   --expose-gc                  GC is forced at every sample
//   --lite-mode --no-expose-wasm only with --lite: V8 without its optimizing
//                                compilers (~4-6 MB less RSS, slower JS).  The
//                                default is Node as users run it, so the
//                                measured process is the one they ship.
//                                (--no-expose-wasm only silences V8's notice
//                                that lite mode turns WebAssembly off.)
import process from 'node:process';
import { fileURLToPath } from 'node:url';

import { main } from '../js/driver.js';

const program = 'node-stress';
const argv = process.argv.slice(2);
const lite = argv.includes('--lite');
const LITE = ['--lite-mode', '--no-expose-wasm'];
const hasLite = process.execArgv.includes('--lite-mode');

if (typeof globalThis.gc !== 'function' || hasLite !== lite) {
  const { spawn } = await import('node:child_process'); // only here: it costs RSS in the measured process
  const keep = process.execArgv.filter((f) => f !== '--expose-gc' && !LITE.includes(f));
  const flags = [...keep, '--expose-gc', ...(lite ? LITE : [])];
  const child = spawn(process.execPath, [...flags, fileURLToPath(import.meta.url), ...argv], { stdio: 'inherit' });
  // A signal to this process goes to the child, which handles it (report,
  // exit 2); a terminal's Ctrl-C reaches both, which the driver expects.
  const forward = (sig) => child.kill(sig);
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, forward);
  child.on('exit', (code, signal) => {
    if (signal) {
      for (const sig of ['SIGINT', 'SIGTERM']) process.off(sig, forward);
      process.kill(process.pid, signal); // die the same way
    } else {
      process.exit(code ?? 2);
    }
  });
} else {
  // The binding is created after the flags are parsed: --help and bad flags
  // work even when the addon is not built yet.  --via koffi: the FFI path
  // (libdalshim.so through koffi) under the same driver.
  const factory = async (o) => {
    const { createBinding } = await import(o.via === 'koffi' ? '../js/ffi-binding.js' : './binding.js');
    return createBinding(o);
  };
  const code = await main(factory, argv, { program, vias: ['addon', 'koffi'] });
  process.exit(code);
}
