// tests/ffi/suite.js -- the behaviour suite of the FFI bindings, written once
// and registered by each runtime's test runner:
//   tests/bun/ffi.test.js (bun test), tests/deno/ffi.test.js (deno test),
//   tests/node/ffi-koffi.test.js (node:test, koffi).
// Every check runs against a real SQLite database through libdalshim.so.
//
// ctx: { runtime: 'bun'|'deno'|'koffi', binding: ffi/<runtime>.js module,
//        createSchema(file, sql), stressCommand(args) -> [cmd, ...argv] }
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

import { CODES, STATS } from '../../ffi/abi.js';
import { DalError } from '../../lib/errors.js';
import { REFERENCE_REQUEST } from '../../stress/js/workload.js';
import { REQUEST_TABLE, SCHEMA, TABLE_ID, hex, refusals } from './cases.js';
import { checkExec } from './exec-checks.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const { DALSHIM_STAT_CALLS: STAT_CALLS, DALSHIM_STAT_ERRORS: STAT_ERRORS, DALSHIM_STAT_BUFFERS_LIVE: STAT_BUFFERS_LIVE } = STATS;

function freshDir(ctx, schema = SCHEMA) {
  const dir = mkdtempSync(join(tmpdir(), `dalkit-${ctx.runtime}-`));
  if (schema) ctx.createSchema(join(dir, 'database.sqlite'), schema);
  return dir;
}

async function withDb(ctx, fn, schema = SCHEMA) {
  const dir = freshDir(ctx, schema);
  const db = ctx.binding.open({ dir });
  try {
    return await fn(db, dir);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const stat = (ctx, index) => Number(ctx.binding.binding().raw.dalshim_stat(0, index));

// A child process of this runtime: resolves {code, signal, stdout, stderr};
// onStdout(text so far, {kill(signal)}).  ctx.child replaces it where the
// runtime's node:child_process is not faithful (see tests/deno/ffi.test.js).
function nodeChild(cmd, args, { onStdout, onStderr } = {}) {
  return new Promise((resolve, reject) => {
    // Its own process group, so that interrupt() reaches every process of the
    // command, as Ctrl-C in a terminal does (stress/node/main.js relaunches
    // node with V8 flags and leaves SIGINT to that child).
    const p = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    p.interrupt = () => process.kill(-p.pid, 'SIGINT');
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => { stdout += d; onStdout?.(stdout, p); });
    p.stderr.on('data', (d) => { stderr += d; onStderr?.(stderr, p); });
    p.on('error', reject);
    p.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

export function ffiSuite(ctx) {
  const child = ctx.child ?? nodeChild;
  const tests = [];
  const test = (name, fn, timeoutMs = 60_000) => tests.push({ name, fn, timeoutMs });

  test('the reference request encodes to the 87 bytes of dal-shim/common/reference_workload.hpp', async () => {
    await withDb(ctx, (db) => {
      const bytes = db.encode(db.In('data').Find({ a: 1, b: { $gt: 2 } }), 9);
      assert.equal(hex(bytes), hex(REFERENCE_REQUEST));
    }, null);
  });

  test('request bytes are identical to the Node addon\'s for the query table', async () => {
    const r = spawnSync('node', [join(ROOT, 'tests/ffi/addon-requests.mjs')], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, `the addon's encodings are needed (build/out/dalkit.node): ${r.stderr}`);
    const addon = JSON.parse(r.stdout);
    await withDb(ctx, (db) => {
      assert.equal(Object.keys(addon).length, REQUEST_TABLE.length);
      for (const [name, build, id = TABLE_ID] of REQUEST_TABLE) {
        assert.equal(hex(db.encode(build(db), id)), addon[name], `query "${name}"`);
      }
    }, null);
  });

  test('every method and filter round-trips through a real database', async () => {
    await withDb(ctx, (db) => {
      const blob = new Uint8Array([1, 2, 3, 250]);
      const ins = db.In('data').Insert(
        { id: 1, a: 1, b: 1, name: 'alpha', score: 1.5, blob },
        { id: 2, a: 1, b: 3, name: 'beta', score: 2.5, blob: null },
        { id: 3, a: 2, b: 5, name: 'gamma', score: null, blob: null },
        { id: 4, a: 2, b: 7, name: 'délta €', score: 4, blob: null },
        { id: 5, a: 3, b: 9, name: null, score: 5, blob: null },
      ).run();
      assert.deepEqual(ins, { rowsAffected: 5, lastInsertId: 5 });

      const ref = db.In('data').Find({ a: 1, b: { $gt: 2 } }).Fields('id', 'name').all();
      assert.deepEqual(ref, [{ id: 2, name: 'beta' }]);
      const one = db.In('data').Find({ id: 1 }).all()[0];
      assert.deepEqual([one.a, one.name, one.score], [1, 'alpha', 1.5]);
      assert.deepEqual(Array.from(one.blob), Array.from(blob));

      const ids = (q) => q.Fields('id').all().map((r) => r.id);
      assert.deepEqual(ids(db.In('data').Find({ b: { $gte: 3, $lt: 9 } }).Sort({ id: 1 })), [2, 3, 4]);
      assert.deepEqual(ids(db.In('data').Find({ $or: [{ a: 3 }, { name: 'alpha' }] }).Sort({ id: 'asc' })), [1, 5]);
      assert.deepEqual(ids(db.In('data').Find({ $not: { a: { $in: [1, 2] } } })), [5]);
      assert.deepEqual(ids(db.In('data').Find({ a: { $nin: [1, 2, 3] } })), []);
      assert.deepEqual(ids(db.In('data').Find({ name: null })), [5]);
      assert.deepEqual(ids(db.In('data').Find({ name: { $ne: null, $like: '%a' } }).Sort({ id: -1 })), [3, 2, 1]);
      assert.deepEqual(ids(db.In('data').Find({ name: { $glob: 'd*' } })), [4]);
      assert.deepEqual(ids(db.In('data').Find({ b: { $between: [3, 5] } }).Sort({ id: 1 })), [2, 3]);
      assert.deepEqual(ids(db.In('data').Find({ b: { $nbetween: [2, 8] } }).Sort({ id: 1 })), [1, 5]);
      assert.deepEqual(ids(db.In('data').Sort({ id: 'desc' }).Limit(2).Offset(1)), [4, 3]);
      assert.deepEqual(db.In('data').Fields('a', 'count(*) as n').Group('a').Sort({ a: 1 }).all(),
        [{ a: 1, n: 2 }, { a: 2, n: 2 }, { a: 3, n: 1 }]);

      assert.equal(db.In('data').Set({ name: 'renamed' }).Find({ id: 5 }).run().rowsAffected, 1);
      assert.equal(db.In('data').Find({ id: 5 }).Fields('name').all()[0].name, 'renamed');
      assert.equal(db.In('data').Delete().Find({ a: 3 }).run().rowsAffected, 1);
      assert.deepEqual([...db.In('data').Fields('id').Sort({ id: 1 }).iterate()].map((r) => r.id), [1, 2, 3, 4]);

      db.In('users').Insert({ id: 1, name: 'ann' }, { id: 2, name: 'bob' }).run();
      db.In('posts').Insert({ id: 1, user_id: 1, title: 't1' }, { id: 2, user_id: 1, title: 't2' }).run();
      assert.deepEqual(db.In('users', 'u').Fields('u.name', 'count(p.id) as n')
        .Join({ $for: 'posts p', $do: { 'u.id': 'p.user_id' }, $as: 'left' }).Group('u.id').Sort({ 'u.id': 1 }).all(),
      [{ name: 'ann', n: 2 }, { name: 'bob', n: 0 }]);

      db.In('kv').Insert({ k: 'x', v: 1, note: 'first' }).run();
      db.In('kv').Insert({ k: 'x', v: 2, note: 'second' }).OnConflict('k').DoUpdate('v').run();
      db.In('kv').Insert({ k: 'x', v: 3, note: 'third' }).OnConflict('k').DoNothing().run();
      assert.deepEqual(db.In('kv').Find({ k: 'x' }).all(), [{ k: 'x', v: 2, note: 'first' }]);

      const tx = db.Tx(db.In('kv').Insert({ k: 'y', v: 10 }), db.In('kv').Set({ v: 11 }).Find({ k: 'y' }));
      assert.equal(tx.rowsAffected, 2);
      // A failing statement rolls the whole transaction back.
      assert.throws(() => db.Tx(db.In('kv').Insert({ k: 'z', v: 1 }), db.In('kv').Insert({ k: 'z', v: 2 })), DalError);
      assert.deepEqual(db.In('kv').Find({ k: 'z' }).all(), []);

      // int64 beyond 2^53 comes back as BigInt.
      db.In('kv').Insert({ k: 'big', v: 2n ** 62n }).run();
      assert.equal(db.In('kv').Find({ k: 'big' }).all()[0].v, 2n ** 62n);
    });
  });

  test('refused values throw a TypeError naming their path, and nothing is sent', async () => {
    await withDb(ctx, (db) => {
      const calls = stat(ctx, STAT_CALLS);
      for (const [what, filter, path, reason] of refusals()) {
        assert.throws(() => db.In('data').Find(filter).all(),
          (e) => e instanceof TypeError && e.message.startsWith(path) && reason.test(e.message), `${what} -> ${path}`);
      }
      assert.equal(stat(ctx, STAT_CALLS), calls);
    });
  });

  test('each value is read once: a getter cannot pass the check and then change for the encoder', async () => {
    await withDb(ctx, (db) => {
      // A getter giving a function on its first read: a TypeError naming its
      // path, read once, nothing sent.
      let reads = 0;
      const calls = stat(ctx, STAT_CALLS);
      const fnFirst = { a: 1, get b() { reads++; return reads === 1 ? () => 1 : 1; } };
      assert.throws(() => db.In('data').Find(fnFirst).all(),
        (e) => e instanceof TypeError && e.message.startsWith('Find.args[0].b: ') && /function/.test(e.message));
      assert.equal(reads, 1);
      assert.equal(stat(ctx, STAT_CALLS), calls, 'nothing was sent');
      // 1 on its first read, a function on the second (which used to be the
      // encoder's read, sending a request the check never saw): read once, so
      // the bytes are those of the value checked, b: 1, and the DAL gets a
      // well-formed request (its answer: no such table).
      reads = 0;
      const fnSecond = () => ({ a: 1, get b() { reads++; return reads === 1 ? 1 : () => 1; } });
      assert.equal(hex(db.encode(db.In('data').Find(fnSecond()), 9)), hex(db.encode(db.In('data').Find({ a: 1, b: 1 }), 9)));
      assert.equal(reads, 1);
      reads = 0;
      assert.throws(() => db.In('data').Find(fnSecond()).all(), (e) => e instanceof DalError &&
        e.errno === CODES.DALSHIM_E_SQL && e.message === 'no such table: data');
      assert.equal(reads, 1);
      // Deeper, and in arrays: each element read once.
      reads = 0;
      const arr = [1, 2];
      Object.defineProperty(arr, 1, { get() { reads++; return reads === 1 ? 2 : Symbol('late'); }, enumerable: true });
      assert.equal(hex(db.encode(db.In('data').Find({ a: { $in: arr } }), 9)), hex(db.encode(db.In('data').Find({ a: { $in: [1, 2] } }), 9)));
      assert.equal(reads, 1);
    }, null);
  });

  test('an SQL error is a DalError whose code the library names', async () => {
    await withDb(ctx, (db) => {
      assert.throws(() => db.In('nope').Find({ a: 1 }).all(), (e) => e instanceof DalError &&
        e.code === 'DALSHIM_E_SQL' && e.errno === CODES.DALSHIM_E_SQL && e.message === 'no such table: nope' && typeof e.requestId === 'number');
      assert.throws(() => db.In('data').Find({ a: { $nope: 1 } }).all(), (e) => e instanceof DalError &&
        e.code === 'DAL_E_REQUEST' && /\$nope/.test(e.message));
    });
  });

  test('exec: schema, SQL errors as DalError with the message, closed database', async () => {
    const dir = freshDir(ctx, null);
    try {
      checkExec(ctx.binding.open, dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('close() twice is harmless; a closed database throws DALSHIM_E_CLOSED', async () => {
    const dir = freshDir(ctx);
    try {
      const db = ctx.binding.open({ dir });
      assert.equal(db.isOpen, true);
      db.close();
      db.close();
      assert.equal(db.isOpen, false);
      assert.throws(() => db.In('data').Find({}).all(), (e) => e instanceof DalError && e.code === 'DALSHIM_E_CLOSED');
      assert.throws(() => db.queryRaw(REFERENCE_REQUEST), (e) => e instanceof DalError && e.code === 'DALSHIM_E_CLOSED');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('bad open arguments: DalError from the DAL, TypeError for a NUL in a C string', async () => {
    assert.throws(() => ctx.binding.open({ dir: join(tmpdir(), 'dalkit-does-not-exist-7f3a') }), DalError);
    assert.throws(() => ctx.binding.open({ dir: `${tmpdir()}\0/x` }), /NUL/);
    assert.throws(() => ctx.binding.open({ dir: tmpdir(), options: 'no_such_option=1' }), (e) => e instanceof DalError && e.code === 'DAL_E_OPTIONS');
    assert.throws(() => ctx.binding.open({}), TypeError);
  });

  test('a response larger than the reused buffer comes through take_pending; the request runs once', async () => {
    await withDb(ctx, (db) => {
      const big = new Uint8Array(300_000).map((_, i) => i & 0xff);
      db.In('data').Insert({ id: 1, blob: big }).run();
      const calls = stat(ctx, STAT_CALLS);
      const row = db.In('data').Find({ id: 1 }).Fields('blob').all()[0];
      assert.equal(stat(ctx, STAT_CALLS), calls + 1);
      assert.equal(hex(row.blob.subarray(0, 300)), hex(big.subarray(0, 300)));
      assert.equal(row.blob.length, big.length);
      assert.ok(row.blob.every((x, i) => x === (i & 0xff)));

      // The raw API: too small a target -> n > cap, nothing written, the
      // response waits for takePending (no second call).
      const req = db.encode(db.In('data').Find({ id: 1 }).Fields('blob'), 77);
      const small = new Uint8Array(16);
      const n = db.queryInto(req, small);
      assert.ok(n > small.length);
      const target = new Uint8Array(n);
      assert.equal(db.takePending(target), n);
      assert.equal(target[0] & 0xf0, 0x80); // a map
      assert.equal(stat(ctx, STAT_CALLS), calls + 2);
    });
  });

  test('takePending as the addon: the newest too-small response wins; closed -> DALSHIM_E_CLOSED', async () => {
    const misuse = (e) => e instanceof DalError && e.code === 'DAL_E_MISUSE' && e.errno === CODES.DALSHIM_E_MISUSE;
    await withDb(ctx, async (db) => {
      db.In('data').Insert({ id: 1, blob: new Uint8Array(1000).fill(1) }).run();
      db.In('data').Insert({ id: 2, blob: new Uint8Array(2000).fill(2) }).run();
      const reqA = db.encode(db.In('data').Find({ id: 1 }).Fields('blob'), 5);
      const reqB = db.encode(db.In('data').Find({ id: 2 }).Fields('blob'), 6);
      const respA = hex(db.queryRaw(reqA));
      const respB = hex(db.queryRaw(reqB));
      const small = new Uint8Array(16);
      const take = () => {
        const t = new Uint8Array(4096);
        const n = db.takePending(t);
        return hex(t.subarray(0, n));
      };
      assert.throws(() => db.takePending(new Uint8Array(4096)), misuse);
      // async too small, then sync too small: the sync (newer) one is taken.
      assert.ok(await db.queryIntoAsync(reqA, small) > small.length);
      assert.ok(db.queryInto(reqB, small) > small.length);
      assert.equal(take(), respB);
      assert.throws(() => db.takePending(new Uint8Array(4096)), misuse);
      // sync too small, then async too small: the async (newer) one; the
      // older one is gone, not handed out by a second takePending.
      assert.ok(db.queryInto(reqB, small) > small.length);
      assert.ok(await db.queryIntoAsync(reqA, small) > small.length);
      assert.equal(take(), respA);
      assert.throws(() => db.takePending(new Uint8Array(4096)), misuse);
    });
    // A closed Database throws DALSHIM_E_CLOSED, pending response or not.
    await withDb(ctx, async (db, dir) => {
      db.In('data').Insert({ id: 1, blob: new Uint8Array(1000) }).run();
      const other = ctx.binding.open({ dir });
      try {
        const req = db.encode(db.In('data').Find({ id: 1 }).Fields('blob'), 7);
        const n = other.queryInto(req, new Uint8Array(16));
        assert.ok(n > 16);
        other.close();
        assert.throws(() => other.takePending(new Uint8Array(n)), (e) => e instanceof DalError &&
          e.code === 'DALSHIM_E_CLOSED' && e.errno === CODES.DALSHIM_E_CLOSED && e.message === 'database is closed');
        // The closed Database's response did not stay behind for another.
        assert.throws(() => db.takePending(new Uint8Array(n)), misuse);
      } finally {
        other.close();
      }
    });
  });

  test('queryRaw frees every response buffer exactly once', async () => {
    await withDb(ctx, (db) => {
      const live = stat(ctx, STAT_BUFFERS_LIVE);
      const errors = stat(ctx, STAT_ERRORS);
      for (let i = 0; i < 2000; i++) {
        const r = db.queryRaw(REFERENCE_REQUEST);
        assert.equal(r.length, 34);
      }
      assert.equal(stat(ctx, STAT_BUFFERS_LIVE), live); // none left over
      assert.equal(stat(ctx, STAT_ERRORS), errors);     // no double free reported
    }, null);
  });

  test('async forms resolve to the sync results', async () => {
    await withDb(ctx, async (db) => {
      assert.deepEqual(await db.In('data').Insert({ id: 1, a: 1, b: 3 }).runAsync(), { rowsAffected: 1, lastInsertId: 1 });
      assert.deepEqual(await db.In('data').Find({ a: 1 }).Fields('id', 'b').allAsync(), [{ id: 1, b: 3 }]);
      assert.deepEqual((await db.TxAsync(db.In('data').Set({ b: 4 }).Find({ id: 1 }))).rowsAffected, 1);
      await assert.rejects(db.In('nope').Find({}).allAsync(), (e) => e instanceof DalError && e.code === 'DALSHIM_E_SQL');
      const raw = await db.queryRawAsync(REFERENCE_REQUEST);
      assert.equal(hex(raw), hex(db.queryRaw(REFERENCE_REQUEST)));
      const rows = [];
      for await (const r of db.In('data').Fields('b').iterateAsync()) rows.push(r);
      assert.deepEqual(rows, [{ b: 4 }]);
    });
  });

  test('an async shim failure carries its code and message (dalshim_query_ex), and is sent once', async () => {
    // Deno and koffi run the call on a pool thread, where the shim's
    // thread-local last error stays; Bun runs it on the JS thread.  Each
    // must report what the synchronous queryRaw reports.
    await withDb(ctx, async (db) => {
      const bad = Uint8Array.from([0xc1]); // not MessagePack: the DAL refuses it (DAL_E_DECODE)
      const calls = stat(ctx, STAT_CALLS);
      let syncMessage = '';
      assert.throws(() => db.queryRaw(bad), (e) => {
        syncMessage = e.message;
        return e instanceof DalError && e.code === 'DAL_E_DECODE' && e.errno === CODES.DALSHIM_E_DECODE && /0xc1/.test(e.message);
      });
      const live = stat(ctx, STAT_BUFFERS_LIVE);
      await assert.rejects(db.queryRawAsync(bad), (e) => e instanceof DalError &&
        e.code === 'DAL_E_DECODE' && e.errno === CODES.DALSHIM_E_DECODE && e.message === syncMessage);
      assert.equal(stat(ctx, STAT_CALLS), calls + 2, 'each request reached the shim exactly once');
      assert.equal(stat(ctx, STAT_BUFFERS_LIVE), live, 'the message buffer was freed');
      // The builder's async forms report the same way (the request is refused by the DAL).
      await assert.rejects(db.In('data').Find({ a: { $nope: 1 } }).allAsync(), (e) => e instanceof DalError &&
        e.code === 'DAL_E_REQUEST' && e.errno === CODES.DALSHIM_E_REQUEST && /\$nope/.test(e.message));
      // Several at once, each with its own outcome.
      const results = await Promise.allSettled([bad, REFERENCE_REQUEST, bad, REFERENCE_REQUEST].map((r) => db.queryRawAsync(r)));
      assert.deepEqual(results.map((r) => r.status), ['rejected', 'fulfilled', 'rejected', 'fulfilled']);
      assert.equal(results[0].reason.errno, CODES.DALSHIM_E_DECODE);
      assert.equal(results[1].value.length, 34);
    }, null);
  });

  test('an async call on a closed database: DALSHIM_E_CLOSED with the shim\'s message', async () => {
    const dir = freshDir(ctx, null);
    try {
      const db = ctx.binding.open({ dir });
      db.close();
      let syncMessage = '';
      assert.throws(() => db.queryRaw(REFERENCE_REQUEST), (e) => {
        syncMessage = e.message;
        return e instanceof DalError && e.code === 'DALSHIM_E_CLOSED' && /is closed/.test(e.message);
      });
      await assert.rejects(db.queryRawAsync(REFERENCE_REQUEST), (e) => e instanceof DalError &&
        e.code === 'DALSHIM_E_CLOSED' && e.errno === CODES.DALSHIM_E_CLOSED && e.message === syncMessage);
      await assert.rejects(db.In('data').Find({}).allAsync(), (e) => e instanceof DalError &&
        e.code === 'DALSHIM_E_CLOSED' && e.errno === CODES.DALSHIM_E_CLOSED && /is closed/.test(e.message));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('process.exit() and Ctrl-C work with the Go runtime loaded (spawned children)', async () => {
    const [cmd, ...pre] = ctx.childCommand('tests/ffi/signal-child.js');
    const dir = freshDir(ctx, null);
    try {
      await signalChecks(cmd, pre, dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // Once, when the child says it is ready.
  function interruptWhenReady(text, p) {
    if (text.includes('ready') && !p.interrupted) {
      p.interrupted = true;
      p.kill('SIGINT');
    }
  }

  async function signalChecks(cmd, pre, dir) {
    const exit = await child(cmd, [...pre, 'exit', dir]);
    assert.equal(exit.signal, null, exit.stderr);
    assert.equal(exit.code, 7, exit.stderr);
    // No SIGINT handler in JS: the default action (termination by SIGINT),
    // not a Go crash or a hang.
    const plain = await child(cmd, [...pre, 'wait', dir], { onStdout: interruptWhenReady });
    assert.equal(plain.signal, 'SIGINT', `code ${plain.code}: ${plain.stderr}`);
    // A JS SIGINT handler still gets the signal.
    const handled = await child(cmd, [...pre, 'handler', dir], { onStdout: interruptWhenReady });
    assert.equal(handled.code, 3, handled.stderr);
  }

  test('a short stress run reports NO LEAK and exits 0', async () => {
    const [cmd, ...args] = ctx.stressCommand(['--queries', '200000', '--progress', 'off']);
    const r = await child(cmd, args);
    assert.equal(r.code, 0, r.stdout.slice(-3000) + r.stderr);
    assert.match(r.stdout, /VERDICT: NO LEAK \(exit code 0\)/);
  }, 240_000);

  test('Ctrl-C stops a stress run: report printed, exit code 2', async () => {
    const [cmd, ...args] = ctx.stressCommand(['--queries', '1e9', '--progress', 'plain', '--sample-every', '20000']);
    // Interrupted once the run is under way (its header is on stderr).
    const r = await child(cmd, args, {
      onStderr: (text, p) => {
        if (text.includes(' queries, api ') && !p.interrupted) {
          p.interrupted = true;
          setTimeout(() => (p.interrupt ? p.interrupt() : p.kill('SIGINT')), 1500);
        }
      },
    });
    assert.equal(r.code, 2, `signal ${r.signal}: ${r.stderr.slice(-2000)}`);
    assert.match(r.stdout, /interrupted[^\n]*SIGINT/); // the report names the cause
    assert.match(r.stdout, /VERDICT: ERROR/);
  }, 120_000);

  test('--max-errors bounds the whole run, not each of --workers N', async () => {
    // A "data" table: the reference query ("no such table: data") gets a
    // wrong answer every time, so every query is an error.
    const dir = freshDir(ctx);
    try {
      const max = 3000;
      const workers = 2;
      const chunk = 1024; // stress/js/worker.js checks the count between chunks
      const [cmd, ...args] = ctx.stressCommand(['--queries', '20001', '--workers', String(workers),
        '--max-errors', String(max), '--db-dir', dir, '--progress', 'off']);
      const r = await child(cmd, args);
      assert.equal(r.code, 2, r.stdout.slice(-3000) + r.stderr.slice(-3000));
      const m = /stopped after (\d+) errors/.exec(r.stdout + r.stderr);
      assert.ok(m, r.stdout.slice(-3000));
      // Counted per worker, each would go on to `max` (>= 2 * max in all);
      // counted together, each worker ends at most one chunk past the limit.
      const errors = Number(m[1]);
      assert.ok(errors >= max && errors < max + workers * chunk, `${errors} errors`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);

  test('--workers 2: one sample at every sample point, the workers paused there', async () => {
    // Samples follow the count, not the clock (stress/js/sample-points.js):
    // START after the main thread's query 1, one at every multiple of 100
    // below 2,001, END at 2,001; no more, no fewer, however fast the run.
    const out = join(mkdtempSync(join(tmpdir(), 'dalkit-samples-')), 'run.json');
    try {
      const [cmd, ...args] = ctx.stressCommand(['--queries', '2001', '--sample-every', '100', '--workers', '2',
        '--json', out, '--progress', 'off']);
      const r = await child(cmd, args);
      assert.ok(r.code === 0 || r.code === 1, r.stdout.slice(-3000) + r.stderr.slice(-3000));
      const points = Array.from({ length: 20 }, (_, k) => 100 * (k + 1));
      const report = JSON.parse(readFileSync(out, 'utf8'));
      assert.deepEqual(report.samples.map((x) => x.queries), [1, ...points, 2001]);
      assert.equal(report.counts.queries, 2001);
    } finally {
      rmSync(join(out, '..'), { recursive: true, force: true });
    }
  }, 120_000);

  test('workloads rows and mixed: every answer right, NO LEAK, exit 0', async () => {
    const queries = 30_000;
    for (const workload of ['rows', 'mixed']) {
      const [cmd, ...args] = ctx.stressCommand(['--workload', workload, '--queries', String(queries), '--progress', 'off']);
      const r = await child(cmd, args);
      assert.equal(r.code, 0, r.stdout.slice(-3000) + r.stderr);
      assert.match(r.stdout, new RegExp(`Queries: ${queries.toLocaleString('en-US')}, errors: 0`));
      assert.match(r.stdout, /VERDICT: NO LEAK \(exit code 0\)/);
      assert.match(r.stderr, new RegExp(`stress: workload ${workload}, `));
    }
  }, 240_000);

  test('a workload file with a wrong expected value: wrong answers named, exit 2', async () => {
    const dir = freshDir(ctx, null);
    try {
      const text = readFileSync(join(ROOT, 'stress', 'workloads', 'mixed.json'), 'utf8');
      const file = join(dir, 'mixed-corrupted.json');
      // Step 3's error message: one wrong answer per 8 queries.
      writeFileSync(file, text.replace('"no such column: nope"', '"no such column: nope!"'));
      const [cmd, ...args] = ctx.stressCommand(['--workload', file, '--queries', '800', '--progress', 'off']);
      const r = await child(cmd, args);
      assert.equal(r.code, 2, r.stdout.slice(-3000) + r.stderr);
      assert.match(r.stderr, /wrong answer to request \d+: e: expected string "no such column: nope!", got string "no such column: nope"/);
      assert.match(r.stdout, /errors: 100\b/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  test('a planted JS leak is caught and attributed', async () => {
    const [cmd, ...args] = ctx.stressCommand(['--queries', '200000', '--progress', 'off', '--plant-leak', `${ctx.plantLayer}:512`]);
    const r = await child(cmd, args);
    assert.equal(r.code, 1, r.stdout.slice(-3000) + r.stderr);
    // Attributed: the planted layer is among those the verdict names.
    assert.match(r.stdout, new RegExp(`VERDICT: LEAK in [a-z_ ]*\\b${ctx.plantLayer}\\b`));
  }, 240_000);

  return tests;
}

export { DalError, ROOT, freshDir, process };
