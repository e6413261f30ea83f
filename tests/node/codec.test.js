// codec.test.js -- lib/codec.js's reading of SQL-error responses, which every
// runtime's API shares: "ec" is SQLite's extended result code (an integer)
// or, from the DAL on PostgreSQL, the SQLSTATE (a 5-character string,
// docs/protocol.md "On PostgreSQL"); anything else is an invalid response,
// as dal-shim/src/response.cpp decides for the C++ API.  And msgpackr is
// loaded at the first response decoded, not when the API is imported.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { pack } from 'msgpackr';

import { SqlFailure, readResponse } from '../../lib/codec.js';
import { DalError } from '../../lib/errors.js';

const makeError = (code, message, requestId) => new DalError(message, { code, requestId });
const read = (m) => {
  const bytes = pack(m);
  return readResponse(bytes, bytes.length, m.i, makeError);
};

test('an integer ec is sqliteCode, a SQLSTATE string is sqlstate', () => {
  const sqlite = read({ i: 3, ra: 0, li: 0, e: 'UNIQUE constraint failed: kv.k', ec: 2067 });
  assert.ok(sqlite instanceof SqlFailure);
  assert.equal(sqlite.sqliteCode, 2067);
  assert.equal(sqlite.sqlstate, undefined);
  const pg = read({ i: 4, ra: 0, li: 0, e: 'duplicate key value violates unique constraint "kv_pkey"', ec: '23505' });
  assert.ok(pg instanceof SqlFailure);
  assert.equal(pg.sqlstate, '23505');
  assert.equal(pg.sqliteCode, undefined);
  assert.equal(pg.message, 'duplicate key value violates unique constraint "kv_pkey"');
  const none = read({ i: 5, ra: 0, li: 0, e: 'no such table: data' });
  assert.equal(none.sqliteCode, undefined);
  assert.equal(none.sqlstate, undefined);
});

test('an ec that is neither is an invalid response', () => {
  for (const ec of ['2350', '235050', '42p01', '', 1.5, 2 ** 31, true]) {
    assert.throws(() => read({ i: 6, ra: 0, li: 0, e: 'x', ec }),
      (e) => e instanceof DalError && e.code === 'DALSHIM_E_RESPONSE' && /neither a 32-bit integer nor a SQLSTATE/.test(e.message),
      `ec ${JSON.stringify(ec)}`);
  }
});

test('DalError carries sqlstate as given', () => {
  const e = new DalError('relation "data" does not exist', { code: 'DALSHIM_E_SQL', sqlstate: '42P01' });
  assert.equal(e.sqlstate, '42P01');
  assert.equal('sqliteCode' in e, false);
});

// A program that imports the API but only sends bytes (the stress drivers'
// queryInto) never loads msgpackr: about 5 MB of a Node process's RSS
// (docs/benchmarks.md).  In a child, so that this file's own import of
// msgpackr is not counted.
test('msgpackr is loaded at the first decoded response, not at import', () => {
  const codec = fileURLToPath(new URL('../../lib/codec.js', import.meta.url));
  const script = `
    import { readFileSync } from 'node:fs';
    import { createRequire } from 'node:module';
    const { readResponse } = await import(${JSON.stringify(codec)});
    // msgpackr as a CommonJS module, or its native helper mapped (whichever
    // way msgpackr was loaded).
    const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((f) => /[\\/]msgpackr[\\/]/.test(f)) ||
      readFileSync('/proc/self/maps', 'utf8').includes('msgpackr-extract');
    const before = loaded();
    const bytes = new Uint8Array([0x83, 0xa1, 0x69, 0x07, 0xa2, 0x72, 0x61, 0x02, 0xa2, 0x6c, 0x69, 0x05]);
    const r = readResponse(bytes, bytes.length, 7, (code, message) => new Error(code + ': ' + message));
    console.log(JSON.stringify({ before, after: loaded(), r }));`;
  const p = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(p.status, 0, p.stderr);
  assert.deepEqual(JSON.parse(p.stdout), { before: false, after: true, r: { rowsAffected: 2, lastInsertId: 5 } });
});
