// tests/node/ffi-koffi.test.js -- the FFI suite (tests/ffi/suite.js) through
// koffi on Node (ffi/koffi.js), plus koffi in a worker_thread: the way
// around the main-thread cost of Go's stack-bounds refresh (ffi/koffi.js,
// docs/benchmarks.md).  Tables are created with better-sqlite3.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import Sqlite from 'better-sqlite3';

import * as binding from '../../ffi/koffi.js';
import { ffiSuite } from '../ffi/suite.js';

const ctx = {
  runtime: 'koffi',
  binding,
  createSchema(file, sql) {
    const db = new Sqlite(file);
    db.exec(sql);
    db.close();
  },
  childCommand: (script) => [process.execPath, script],
  // The stress run in a worker_thread (--workers 1): on the main thread every
  // koffi call into Go pays the stack-bounds refresh (~0.1-0.5 ms).
  stressCommand: (args) => [process.execPath, 'stress/node/main.js', '--via', 'koffi', '--workers', '1', ...args],
  plantLayer: 'js_heap',
};

for (const t of ffiSuite(ctx)) test(t.name, { timeout: t.timeoutMs }, t.fn);

test('koffi works from worker_threads, each with its own handle and reused buffer', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'dalkit-koffi-worker-'));
  try {
    const source = `
      import { parentPort, workerData } from 'node:worker_threads';
      const { open } = await import(workerData.koffi);
      const { REFERENCE_REQUEST, REFERENCE_RESPONSE } = await import(workerData.workload);
      const db = open({ dir: workerData.dir });
      const t = new Uint8Array(64);
      let ok = 0;
      for (let i = 0; i < 2000; i++) {
        const n = db.queryInto(REFERENCE_REQUEST, t);
        if (n === REFERENCE_RESPONSE.length && t.subarray(0, n).every((x, j) => x === REFERENCE_RESPONSE[j])) ok++;
      }
      let sqlError = '';
      try { db.In('data').Find({ a: 1 }).all(); } catch (e) { sqlError = e.message; }
      db.close();
      parentPort.postMessage({ ok, sqlError });`;
    const data = {
      dir,
      koffi: new URL('../../ffi/koffi.js', import.meta.url).href,
      workload: new URL('../../stress/js/workload.js', import.meta.url).href,
    };
    const results = await Promise.all([0, 1].map(() => new Promise((resolve, reject) => {
      const w = new Worker(new URL(`data:text/javascript,${encodeURIComponent(source)}`), { workerData: data });
      w.once('message', resolve);
      w.once('error', reject);
    })));
    for (const r of results) assert.deepEqual(r, { ok: 2000, sqlError: 'no such table: data' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('koffi: an empty request reaches the DAL (its decode error), not "req is NULL"', () => {
  // koffi passes an empty Uint8Array as NULL; ffi/session.js sends a real
  // buffer with length 0, as the addon does.
  const dir = mkdtempSync(join(tmpdir(), 'dalkit-koffi-empty-'));
  const db = binding.open({ dir });
  try {
    const decodeError = (e) => e.code === 'DAL_E_DECODE';
    assert.throws(() => db.queryRaw(new Uint8Array(0)), decodeError);
    assert.throws(() => db.queryInto(new Uint8Array(0), new Uint8Array(64)), decodeError);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
