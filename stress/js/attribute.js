// attribute.js -- --attribute: run the JS stress driver under the allocation
// tracer (libdalkit_tracer.so, docs/attribution.md), so that the monitor's
// report names the shared object that holds native memory (native:<dso>).
//
// The tracer must be in the process from its first allocation, which only
// LD_PRELOAD at exec time gives.  So a driver that wants attribution and
// does not have the tracer yet starts itself again, same runtime, flags,
// script and arguments, with the tracer appended to LD_PRELOAD, and exits as
// that child exits: its exit code, or the same signal.  The monitor then
// finds the tracer by itself (dlsym), in every runtime.
import { existsSync, readFileSync } from 'node:fs';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const TRACER_FILE = 'libdalkit_tracer.so';
// Set in the child: it must not start itself again (LD_PRELOAD ignored, a
// tracer that failed to load).
const CHILD_MARK = 'DALKIT_ATTRIBUTE_CHILD';

/**
 * Whether the tracer is mapped into this process.  Deno lets a script read
 * /proc/self/maps only with --allow-all; there LD_PRELOAD says it (the
 * loader maps every preload it can find, and refuses none of ours).
 */
export function tracerLoaded() {
  try {
    return readFileSync('/proc/self/maps', 'utf8').includes(`/${TRACER_FILE}\n`);
  } catch {
    return (process.env.LD_PRELOAD ?? '').split(/[: ]/).some((p) => p.endsWith(`/${TRACER_FILE}`));
  }
}

/** $DALKIT_TRACER, else the build's build/out/libdalkit_tracer.so. */
export function tracerPath(env = process.env) {
  return env.DALKIT_TRACER || fileURLToPath(new URL(`../../build/out/${TRACER_FILE}`, import.meta.url));
}

/** o.attribute as parsed (true, false, null = default): on for --target, off for a workload. */
export function attributionWanted(o) {
  return o.attribute ?? o.target !== null;
}

/** LD_PRELOAD with the tracer appended (a preload already there stays first). */
export function withTracer(preload, path) {
  const list = (preload ?? '').split(/[: ]/).filter(Boolean);
  return [...list, path].join(':');
}

// The command line that starts this very driver again.  Node and Bun keep
// their flags in execArgv; Deno has none there, so its `run`, the
// permissions it was granted and --v8-flags=--expose-gc (a global gc() is
// there only with it; ffi-binding.js denoGc) are given again.  (postgres.js
// starts the driver again the same way, under a throwaway server.)
export function relaunchArgs() {
  const [, script, ...args] = process.argv;
  if (typeof globalThis.Deno === 'undefined') return [...process.execArgv, script, ...args];
  const granted = ['ffi', 'read', 'write', 'env', 'sys', 'run', 'net']
    .filter((name) => globalThis.Deno.permissions.querySync({ name }).state === 'granted')
    .map((name) => `--allow-${name}`);
  const v8 = typeof globalThis.gc === 'function' ? ['--v8-flags=--expose-gc'] : [];
  return ['run', ...v8, ...granted, script, ...args];
}

/**
 * Decide attribution for the parsed flags `o`.  Returns null when the driver
 * goes on in this process (attribution off, or the tracer already loaded, or
 * missing in the default case, after a warning), or a Promise of the exit
 * code of the child started under the tracer (2 when the user asked for
 * --attribute and the tracer cannot be had).
 */
export function attributeOrRelaunch(o, { program, err }) {
  if (!attributionWanted(o) || tracerLoaded()) return null;
  const explicit = o.attribute === true;
  const path = tracerPath();
  const deno = globalThis.Deno;
  const problem = deno && deno.permissions.querySync({ name: 'run' }).state !== 'granted'
    ? 'Deno starts itself under the tracer only with --allow-run (npm run stress:deno gives it)'
    : process.env[CHILD_MARK] === '1'
    ? `${path} was in LD_PRELOAD but is not loaded (a setuid runtime, or a preload the loader refused)`
    : !existsSync(path)
      ? `${path} is missing: build it with scripts/setup.sh (or cmake --build build --target dalkit_tracer), or set DALKIT_TRACER`
      : null;
  if (problem !== null) {
    if (explicit) {
      err(`${program}: --attribute: ${problem}\n`);
      return Promise.resolve(2);
    }
    err(`${program}: no native attribution (native:<dso> layers): ${problem}; --no-attribute silences this\n`);
    return null;
  }
  return relaunch(path);
}

async function relaunch(path) {
  const { spawn } = await import('node:child_process'); // only here: it costs RSS in the measured process
  const env = { ...process.env, LD_PRELOAD: withTracer(process.env.LD_PRELOAD, path), [CHILD_MARK]: '1' };
  const child = spawn(process.execPath, relaunchArgs(), { stdio: 'inherit', env });
  // A signal to this process goes to the child, which handles it (report,
  // exit 2); a terminal's Ctrl-C reaches both, which the driver expects.
  const forward = (sig) => child.kill(sig);
  const signals = ['SIGINT', 'SIGTERM'];
  for (const sig of signals) process.on(sig, forward);
  return new Promise((resolve) => {
    child.on('error', (e) => {
      for (const sig of signals) process.off(sig, forward);
      process.stderr.write(`cannot start ${process.execPath} again under the tracer: ${e.message}\n`);
      resolve(2);
    });
    child.on('exit', (code, signal) => {
      for (const sig of signals) process.off(sig, forward);
      if (signal) process.kill(process.pid, signal); // die the same way
      else resolve(code ?? 2);
    });
  });
}
