// The raw API: request bytes in, response bytes out (queryRaw, queryInto,
// takePending and their async forms).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { open, DalError, native } from '../../lib/index.js';
import { REFERENCE_REQUEST, REFERENCE_RESPONSE } from '../../stress/js/workload.js';
import { tempDir, createTables, hex } from './helpers.js';

let tmp;
let db;
before(() => {
  tmp = tempDir();
  createTables(tmp.dir, 'CREATE TABLE big (id INTEGER PRIMARY KEY, s TEXT);');
  db = open({ dir: tmp.dir });
  db.In('big').Insert(...Array.from({ length: 100 }, (_, i) => ({ id: i + 1, s: 'z'.repeat(1000) }))).run();
});
after(() => { db.close(); tmp.cleanup(); });

const bigRequest = () => db.encode(db.In('big').Find({}), 5);

test('queryRaw returns the response in a new JS-owned buffer', async () => {
  const a = db.queryRaw(REFERENCE_REQUEST);
  const b = db.queryRaw(REFERENCE_REQUEST);
  assert.equal(hex(a), hex(REFERENCE_RESPONSE));
  assert.notEqual(a.buffer, b.buffer, 'each call gets its own memory');
  a.fill(0);
  assert.equal(hex(b), hex(REFERENCE_RESPONSE));
  assert.equal(hex(await db.queryRawAsync(REFERENCE_REQUEST)), hex(REFERENCE_RESPONSE));
  const big = db.queryRaw(bigRequest());
  assert.ok(big.length > 100_000, `a response larger than the 64 KiB scratch (${big.length} bytes)`);
  assert.equal(hex((await db.queryRawAsync(bigRequest())).subarray(0, 64)), hex(big.subarray(0, 64)));
});

test('queryInto writes into the caller\'s buffer; a too-small one keeps the response for takePending', async () => {
  const t = new Uint8Array(64);
  assert.equal(db.queryInto(REFERENCE_REQUEST, t), 34);
  assert.equal(hex(t.subarray(0, 34)), hex(REFERENCE_RESPONSE));
  const small = new Uint8Array(16);
  const before = native.externalBytes();
  const n = db.queryInto(bigRequest(), small);
  assert.ok(n > small.length);
  assert.ok(small.every((x) => x === 0), 'nothing written');
  // The held response is native memory owned for JS: reported to V8.
  assert.ok(native.externalBytes() - before >= n, 'held bytes reported with AdjustExternalMemory');
  assert.equal(db.takePending(small), n, 'still too small: kept, n returned again');
  const full = new Uint8Array(n);
  assert.equal(db.takePending(full), n);
  assert.equal(native.externalBytes(), before, 'released when taken');
  assert.equal(hex(full.subarray(0, 64)), hex(db.queryRaw(bigRequest()).subarray(0, 64)));
  assert.throws(() => db.takePending(full), (e) => e instanceof DalError && e.code === 'DAL_E_MISUSE');
  // Async: the same contract.
  assert.equal(await db.queryIntoAsync(REFERENCE_REQUEST, t), 34);
  const m = await db.queryIntoAsync(bigRequest(), small);
  assert.equal(m, n);
  assert.equal(db.takePending(new Uint8Array(m)), m);
});

test('raw bytes are checked by the DAL: garbage is a DalError, not a crash', async () => {
  assert.throws(() => db.queryRaw(new Uint8Array([0xc1])), (e) => e instanceof DalError && e.code === 'DAL_E_DECODE');
  assert.throws(() => db.queryRaw(new Uint8Array([0x80])), (e) => e.code === 'DAL_E_REQUEST');
  await assert.rejects(db.queryRawAsync(new Uint8Array(0)), (e) => e instanceof DalError && e.errno < 0);
  assert.throws(() => db.queryRaw('not bytes'), { name: 'TypeError', message: /Uint8Array/ });
  assert.throws(() => db.queryInto(REFERENCE_REQUEST, new Uint16Array(8)), TypeError);
  assert.equal(native.codeName(-24), 'DALSHIM_E_CLOSED');
});

test('an empty request reaches the DAL (its decode error), not "req is NULL"', async () => {
  const notNull = (e) => e instanceof DalError && e.code !== 'DAL_E_NULL' && e.code.startsWith('DAL_E_');
  assert.throws(() => db.queryRaw(new Uint8Array(0)), notNull);
  assert.throws(() => db.queryInto(new Uint8Array(0), new Uint8Array(64)), notNull);
  await assert.rejects(db.queryRawAsync(new Uint8Array(0)), notNull);
  await assert.rejects(db.queryIntoAsync(new Uint8Array(0), new Uint8Array(64)), notNull);
});

test('queryIntoAsync with a too-small target settling after close() holds nothing', async () => {
  const other = open({ dir: tmp.dir });
  const base = native.externalBytes();
  const q = other.queryIntoAsync(bigRequest(), new Uint8Array(10));
  other.close();
  assert.ok(await q > 10, 'the response did not fit');
  assert.equal(native.externalBytes(), base, 'no response kept on the closed Database');
});
