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
};

// The Go runtime's threads and the library stay loaded for the process's
// life (never dlclose a Go library): not a resource leak of a test.
for (const t of ffiSuite(ctx)) {
  Deno.test({ name: t.name, fn: t.fn, sanitizeResources: false, sanitizeOps: false });
}
