// tests/ffi/exec-checks.js -- Database.exec(sql), the administrative entry
// (dal_exec through dalshim_exec), checked the same way on every path: the
// Node addon (tests/node/exec.test.js) and the FFI suite (Bun, Deno, koffi).
// Plain ESM; node:assert exists in all three runtimes.
import assert from 'node:assert/strict';

import { DalError } from '../../lib/errors.js';

/**
 * @param {(opts: {dir: string}) => object} open  the path's open()
 * @param {string} dir  an empty data directory
 */
export function checkExec(open, dir) {
  const db = open({ dir });
  try {
    // A schema of several statements; the tables are usable at once.
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL); CREATE INDEX t_v ON t (v);');
    assert.deepEqual(db.In('t').Insert({ id: 1, v: 'a' }, { id: 2, v: 'b' }).run(), { rowsAffected: 2, lastInsertId: 2 });
    assert.deepEqual(db.In('t').Find({ v: 'b' }).all(), [{ id: 2, v: 'b' }]);
    // Not a query: the Database's counters do not move.
    const before = db.stats().queries;
    db.exec('INSERT INTO t (id, v) VALUES (3, \'c\')');
    assert.equal(db.stats().queries, before);
    assert.equal(db.In('t').Find({ id: 3 }).all().length, 1);

    // Bad SQL: a DalError with SQLite's message; statements before it stay done.
    assert.throws(() => db.exec('CREATE TABLE u (x); CREATE TABL oops; CREATE TABLE w (y);'),
      (e) => e instanceof DalError && e.code === 'DAL_E_DATABASE' && /syntax error/.test(e.message), 'bad SQL');
    assert.deepEqual(db.In('u').Insert({ x: 1 }).run(), { rowsAffected: 1, lastInsertId: 1 });
    assert.throws(() => db.In('w').Find({}).all(), (e) => e instanceof DalError && e.message === 'no such table: w');
    assert.throws(() => db.exec('INSERT INTO t (id, v) VALUES (1, \'again\')'),
      (e) => e instanceof DalError && e.code === 'DAL_E_DATABASE' && /UNIQUE constraint failed: t\.id/.test(e.message));
    // A NUL inside the text reaches the DAL (lengths, not C strings), which refuses it.
    assert.throws(() => db.exec('CREATE TABLE z (a);\0DROP TABLE t;'), (e) => e instanceof DalError && e.code === 'DAL_E_REQUEST');
    assert.equal(db.In('t').Find({ id: 1 }).all().length, 1);
    assert.throws(() => db.exec(42), TypeError);

    // Another database file of the directory: the one use() names.
    db.use('other.sqlite').exec('CREATE TABLE o (k TEXT PRIMARY KEY)');
    assert.deepEqual(db.In('o').Find({}).all(), []);
    db.use('database.sqlite');
    assert.throws(() => db.In('o').Find({}).all(), (e) => e instanceof DalError && e.message === 'no such table: o');
  } finally {
    db.close();
  }
  // Closed: DALSHIM_E_CLOSED, as for queries.
  assert.throws(() => db.exec('CREATE TABLE late (a)'), (e) => e instanceof DalError && e.code === 'DALSHIM_E_CLOSED');
}
