// Database.exec(sql) through the Node addon: the checks every path shares
// (tests/ffi/exec-checks.js) -- a schema, SQL errors with SQLite's message,
// a NUL refused, another database file, a closed Database.
import { test } from 'node:test';

import { open } from '../../lib/index.js';
import { checkExec } from '../ffi/exec-checks.js';
import { tempDir } from './helpers.js';

test('exec: schema, SQL errors as DalError with the message, closed database', () => {
  const tmp = tempDir('dalkit-node-exec-');
  try {
    checkExec(open, tmp.dir);
  } finally {
    tmp.cleanup();
  }
});
