// tests/bun/ffi.test.js -- `bun test tests/bun`: the FFI suite (tests/ffi/suite.js)
// through bun:ffi (ffi/bun.js).  Tables are created with bun:sqlite.
import { test } from 'bun:test';
import { Database } from 'bun:sqlite';
import process from 'node:process';

import * as binding from '../../ffi/bun.js';
import { ffiSuite } from '../ffi/suite.js';

const ctx = {
  runtime: 'bun',
  binding,
  createSchema(file, sql) {
    const db = new Database(file);
    db.run(sql);
    db.close();
  },
  childCommand: (script) => [process.execPath, script],
  stressCommand: (args) => [process.execPath, 'stress.ts', ...args],
  plantLayer: 'js_heap',
};

for (const t of ffiSuite(ctx)) test(t.name, t.fn, t.timeoutMs);
