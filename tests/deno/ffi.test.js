// tests/deno/ffi.test.js -- the FFI suite (tests/ffi/suite.js) through
// Deno.dlopen (ffi/deno.js).  Tables are created with node:sqlite.
//   deno test --allow-ffi --allow-read --allow-write --allow-env --allow-sys --allow-run tests/deno
import { DatabaseSync } from 'node:sqlite';

import * as binding from '../../ffi/deno.js';
import { ffiSuite } from '../ffi/suite.js';

export const PERMISSIONS = ['--allow-ffi', '--allow-read', '--allow-write', '--allow-env', '--allow-sys'];

const ctx = {
  runtime: 'deno',
  binding,
  createSchema(file, sql) {
    const db = new DatabaseSync(file);
    db.exec(sql);
    db.close();
  },
  childCommand: (script) => [Deno.execPath(), 'run', ...PERMISSIONS, script],
  stressCommand: (args) => [Deno.execPath(), 'run', ...PERMISSIONS, 'stress.ts', ...args],
  plantLayer: 'js_external',
  child,
};

// Children through Deno.Command: a child spawned with Deno 2.9's
// node:child_process dies of a SIGINT sent with kill() even when it has a
// SIGINT handler (seen with a plain script, no FFI involved), which would
// hide what this suite checks.
async function child(cmd, args, { onStdout, onStderr } = {}) {
  const p = new Deno.Command(cmd, { args, cwd: new URL('../..', import.meta.url), stdout: 'piped', stderr: 'piped' }).spawn();
  const decoder = new TextDecoder();
  let stderr = '';
  const errDecoder = new TextDecoder();
  const errDone = (async () => {
    for await (const c of p.stderr) {
      stderr += errDecoder.decode(c, { stream: true });
      onStderr?.(stderr, p);
    }
  })();
  let stdout = '';
  for await (const c of p.stdout) {
    stdout += decoder.decode(c, { stream: true });
    onStdout?.(stdout, p);
  }
  const status = await p.status;
  await errDone;
  return { code: status.signal ? null : status.code, signal: status.signal, stdout, stderr };
}

// The Go runtime's threads and the library stay loaded for the process's
// life (never dlclose a Go library): not a resource leak of a test.
for (const t of ffiSuite(ctx)) {
  Deno.test({ name: t.name, fn: t.fn, sanitizeResources: false, sanitizeOps: false });
}
