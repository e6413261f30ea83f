// valgrind-driver.js -- node doing N queries through the addon, every kind,
// for the Valgrind memcheck (tests/node/CMakeLists.txt): builder reads and
// writes, SQL errors, refusals, raw and into (with a held pending response),
// async queries, a worker_thread, a database left to its finalizer, then a
// clean exit.  Exit 0 when every answer was right.
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { open, DalError, native } from '../../lib/index.js';
import { REFERENCE_REQUEST, REFERENCE_RESPONSE } from '../../stress/js/workload.js';

const total = Number(process.argv[2] ?? 10000);
const dir = mkdtempSync(join(tmpdir(), 'dalkit-node-valgrind-'));
// DALKIT_OPEN_OPTIONS: e.g. a planted native leak, for the test that proves
// the sanitizer pass's leak check can fail (tests/node/CMakeLists.txt).
const db = open({ dir, options: process.env.DALKIT_OPEN_OPTIONS ?? '' });
let done = 0;

// Rows come from sqlite_master (the DAL has no DDL, and creating tables
// with better-sqlite3 would put a second SQLite under Valgrind for nothing).
const target = new Uint8Array(4096);
const small = new Uint8Array(8);
const big = db.encode(db.In('sqlite_master').Fields('name', 'sql').Find({}), 3);
while (done < total) {
  const k = done % 8;
  if (k === 0) {
    assert.throws(() => db.In('data').Find({ a: 1, b: { $gt: 2 } }).all(), (e) => e instanceof DalError && e.code === 'DALSHIM_E_SQL');
  } else if (k === 1) {
    assert.equal(db.queryInto(REFERENCE_REQUEST, target), REFERENCE_RESPONSE.length);
  } else if (k === 2) {
    assert.equal(db.queryRaw(REFERENCE_REQUEST).length, REFERENCE_RESPONSE.length);
  } else if (k === 3) {
    assert.ok(Array.isArray(db.In('sqlite_master').Fields('name').Limit(5).all()));
  } else if (k === 4) {
    assert.throws(() => db.In('data').Find({ f: () => 1 }).all(), TypeError);
    assert.throws(() => db.In('x y').all(), (e) => e.code === 'DAL_E_REQUEST');
  } else if (k === 5) {
    const n = db.queryInto(big, small); // held for takePending, or fits
    if (n > small.length) db.takePending(new Uint8Array(n));
  } else if (k === 6) {
    await assert.rejects(db.In('data').Find({}).allAsync(), DalError);
  } else {
    assert.equal((await db.queryRawAsync(REFERENCE_REQUEST)).length, REFERENCE_RESPONSE.length);
  }
  done++;
  if (done % 256 === 0) await new Promise((r) => setImmediate(r));
}
// A database only the finalizer closes, and one worker with its own addon instance.
(() => { open({ dir }); })();
globalThis.gc();
await new Promise((r) => setImmediate(r));
await new Promise((resolve, reject) => {
  const code = `const { open } = await import(${JSON.stringify(new URL('../../lib/index.js', import.meta.url).href)});
    const db = open({ dir: ${JSON.stringify(dir)} }); try { db.In('data').all(); } catch {} db.close();`;
  const w = new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`));
  w.once('exit', (c) => (c === 0 ? resolve() : reject(new Error(`worker exit ${c}`))));
  w.once('error', reject);
});
db.close();
rmSync(dir, { recursive: true, force: true });
// The sanitizer pass (ASan runtime preloaded): LeakSanitizer now, while node
// is alive; its exit-time check is off there (tests/node/CMakeLists.txt).
// DALKIT_LSAN_CHECK=expect-leak: the run has a planted leak, which must be found.
if (process.env.DALKIT_LSAN_CHECK) {
  globalThis.gc();
  const r = native.leakCheck();
  const expectLeak = process.env.DALKIT_LSAN_CHECK === 'expect-leak';
  if (expectLeak) {
    // The planted run proves LeakSanitizer can see a leak only if something
    // LSan can see was planted.  The shim's own plant (shim_malloc) is
    // hidden from LSan on purpose (__lsan_ignore_object, dal-shim/src/
    // planted_leak.cpp): a build that planted only there passed with a stale
    // shim and failed in a fresh clone.  So: DAL bytes planted, none in the shim.
    const s = native.stats(false);
    const shimPlanted = s[8]; // DALSHIM_STAT_PLANTED_BYTES
    const dalPlanted = s[9 + 12]; // DALSHIM_STAT_DAL_BASE + DAL_STAT_PLANTED_BYTES
    if (!(dalPlanted > 0) || shimPlanted !== 0) {
      process.stderr.write(`valgrind_driver: expect-leak needs a DAL plant LeakSanitizer can see (DAL planted ${dalPlanted} B, shim planted ${shimPlanted} B; DALKIT_OPEN_OPTIONS=${process.env.DALKIT_OPEN_OPTIONS})\n`);
      process.exit(1);
    }
  }
  if (r < 0) {
    process.stderr.write('valgrind_driver: no LeakSanitizer in this process\n');
    process.exit(1);
  }
  if ((r === 1) !== expectLeak) {
    process.stderr.write(`valgrind_driver: LeakSanitizer ${r === 1 ? 'found leaks' : 'found no leak'}${expectLeak ? ' (a leak was planted)' : ''}\n`);
    process.exit(1);
  }
}
process.stdout.write(`valgrind_driver: ${done} queries ok\n`);
