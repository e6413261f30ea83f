#!/usr/bin/env node
// main.js -- `npm run stress`: the reference workload through the Node addon,
// judged by the kit's monitor.  Flags: `--help` (stress/js/options.js).
//
// The driver forces V8's GC at every sample, so it needs --expose-gc: when
// started without it, it starts itself again with it (same arguments, same
// stdio) and exits with the child's code or signal.
import { spawn } from 'node:child_process';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

import { main } from '../js/driver.js';

const program = 'node-stress';

if (typeof globalThis.gc !== 'function') {
  const child = spawn(process.execPath, [...process.execArgv, '--expose-gc', fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  // Ctrl-C reaches the whole process group; the child handles it (exit 2).
  const ignore = () => {};
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, ignore);
  child.on('exit', (code, signal) => {
    if (signal) {
      for (const sig of ['SIGINT', 'SIGTERM']) process.off(sig, ignore);
      process.kill(process.pid, signal); // die the same way
    } else {
      process.exit(code ?? 2);
    }
  });
} else {
  const { createBinding } = await import('./binding.js');
  // The binding is created after the flags are parsed: --help and bad flags
  // work even when the addon is not built yet.
  // --via koffi: libdalshim.so through koffi instead of the addon (ffi/stress-binding.js).
  const byVia = (o) => (o.via === 'koffi'
    ? import('../../ffi/stress-binding.js').then((m) => m.createBinding(o))
    : createBinding());
  const code = await main(byVia, process.argv.slice(2), { program, vias: ['addon', 'koffi'] });
  process.exit(code);
}
