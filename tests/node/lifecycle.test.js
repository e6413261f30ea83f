// Database lifecycle, worker_threads, the CommonJS entry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';

import { open, DalError, native } from '../../lib/index.js';
import { REFERENCE_REQUEST } from '../../stress/js/workload.js';
import { tempDir, createTables } from './helpers.js';

const HANDLES_OPEN = 7; // DALSHIM_STAT_HANDLES_OPEN (dalshim.h)
const handlesOpen = () => native.stats(false)[HANDLES_OPEN];
const closed = (e) => e instanceof DalError && e.code === 'DALSHIM_E_CLOSED' && e.errno === -24;

test('close(): idempotent; every later call throws DALSHIM_E_CLOSED', async () => {
  const tmp = tempDir();
  try {
    const before = handlesOpen();
    const db = open({ dir: tmp.dir });
    assert.equal(handlesOpen(), before + 1);
    assert.equal(db.isOpen, true);
    db.close();
    assert.equal(db.isOpen, false);
    assert.equal(handlesOpen(), before);
    assert.doesNotThrow(() => db.close(), 'a second close() does nothing');
    const q = db.In('data').Find({});
    assert.throws(() => q.all(), closed);
    assert.throws(() => q.iterate(), closed);
    assert.throws(() => db.In('t').Insert({ a: 1 }).run(), closed);
    assert.throws(() => db.Tx(db.In('t').Insert({ a: 1 })), closed);
    assert.throws(() => db.queryRaw(REFERENCE_REQUEST), closed);
    assert.throws(() => db.queryInto(REFERENCE_REQUEST, new Uint8Array(64)), closed);
    assert.throws(() => db.takePending(new Uint8Array(64)), closed);
    await assert.rejects(async () => q.allAsync(), closed);
    await assert.rejects(async () => db.queryRawAsync(REFERENCE_REQUEST), closed);
  } finally {
    tmp.cleanup();
  }
});

test('close() while async queries are in flight: they finish, then the handle closes', async () => {
  const tmp = tempDir();
  try {
    createTables(tmp.dir, 'CREATE TABLE t (id INTEGER PRIMARY KEY);');
    const before = handlesOpen();
    const db = open({ dir: tmp.dir });
    db.In('t').Insert({ id: 1 }).run();
    const pending = Array.from({ length: 16 }, () => db.In('t').Find({}).allAsync());
    db.close();
    assert.throws(() => db.In('t').all(), closed, 'closed at once for JS');
    const results = await Promise.all(pending);
    assert.deepEqual(results.map((r) => r.length), Array(16).fill(1));
    assert.equal(handlesOpen(), before, 'closed after the last one');
  } finally {
    tmp.cleanup();
  }
});

test('the finalizer closes a database that was never closed', async () => {
  if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
  const tmp = tempDir();
  try {
    const before = handlesOpen();
    (() => { for (let i = 0; i < 20; i++) open({ dir: tmp.dir }); })();
    assert.equal(handlesOpen(), before + 20);
    // Finalizers run when the event loop turns (nodejs/node#26667).
    for (let i = 0; i < 10 && handlesOpen() > before; i++) {
      globalThis.gc();
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(handlesOpen(), before);
  } finally {
    tmp.cleanup();
  }
});

test('open() refuses what the DAL refuses, with its code', () => {
  assert.throws(() => open({ dir: '/nonexistent/dalkit/dir' }), (e) => e instanceof DalError && e.code === 'DAL_E_DATABASE');
  const tmp = tempDir();
  try {
    assert.throws(() => open({ dir: tmp.dir, options: 'no_such_option=1' }), (e) => e.code === 'DAL_E_OPTIONS');
    assert.throws(() => open({ dir: tmp.dir, options: { stmt_cache: -5 } }), (e) => e.code === 'DAL_E_OPTIONS');
    const db = open({ dir: tmp.dir, options: { stmt_cache: 8, busy_timeout_ms: 100 } });
    db.close();
  } finally {
    tmp.cleanup();
  }
  assert.throws(() => open({}), TypeError);
  assert.throws(() => open(), TypeError);
});

test('worker_threads: the addon loads per thread; queries run concurrently', async () => {
  const tmp = tempDir();
  try {
    createTables(tmp.dir, 'CREATE TABLE w (id INTEGER PRIMARY KEY, worker INTEGER, i INTEGER);');
    const code = `
      import { workerData, parentPort } from 'node:worker_threads';
      const { open } = await import(workerData.lib);
      const db = open({ dir: workerData.dir });
      for (let i = 0; i < 200; i++) db.In('w').Insert({ worker: workerData.n, i }).run();
      const sync = db.In('w').Find({ worker: workerData.n }).all().length;
      const asyncRows = (await db.In('w').Find({ worker: workerData.n }).allAsync()).length;
      db.close();
      parentPort.postMessage({ sync, asyncRows });`;
    const lib = new URL('../../lib/index.js', import.meta.url).href;
    const runs = [1, 2, 3].map((n) => new Promise((resolve, reject) => {
      const w = new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`), { workerData: { dir: tmp.dir, n, lib } });
      w.once('message', resolve);
      w.once('error', reject);
    }));
    assert.deepEqual(await Promise.all(runs), [1, 2, 3].map(() => ({ sync: 200, asyncRows: 200 })));
    const db = open({ dir: tmp.dir });
    assert.equal(db.In('w').Fields('count(*) as n').all()[0].n, 600);
    db.close();
  } finally {
    tmp.cleanup();
  }
});

test('the CommonJS entry is the same module', () => {
  const require = createRequire(import.meta.url);
  const cjs = require('../../lib/index.cjs');
  assert.equal(cjs.open, open);
  assert.equal(cjs.DalError, DalError);
});

test('a NUL inside dir, options or a library path is a TypeError naming it', () => {
  const tmp = tempDir();
  try {
    const before = handlesOpen();
    assert.throws(() => open({ dir: `${tmp.dir}\0/zzz` }), { name: 'TypeError', message: /dir: contains a NUL/ });
    assert.throws(() => open({ dir: tmp.dir, options: 'busy_timeout_ms=10\0junk' }), { name: 'TypeError', message: /options: contains a NUL/ });
    assert.throws(() => native.load('libdal.so\0x'), { name: 'TypeError', message: /path: contains a NUL/ });
    assert.equal(handlesOpen(), before, 'nothing was opened');
  } finally {
    tmp.cleanup();
  }
});
