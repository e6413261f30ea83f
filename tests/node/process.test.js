// Loading the Go runtime into Node must not break how Node ends: Ctrl-C
// (SIGINT) with and without a JS handler, SIGTERM, process.exit() with
// queries in flight, an uncaught exception, an unhandled rejection.  Each in
// a child process, exit code and signal checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';

import { tempDir } from './helpers.js';

const lib = new URL('../../lib/index.js', import.meta.url).href;

// The child opens a database, starts querying (sync loop that yields, plus
// async queries on the thread pool), prints "ready", then does `then`.
function child(then, { signal = null } = {}) {
  const tmp = tempDir();
  const code = `
    const { open } = await import(${JSON.stringify(lib)});
    const db = open({ dir: ${JSON.stringify(tmp.dir)} });
    const req = db.encode(db.In('data').Find({ a: 1 }), 1);
    const buf = new Uint8Array(4096);
    let n = 0;
    const spin = () => { for (let i = 0; i < 200; i++) db.queryInto(req, buf); n += 200; db.queryRawAsync(req).catch(() => {}); setImmediate(spin); };
    spin();
    setTimeout(() => { process.stdout.write('ready\\n'); ${then} }, 200);
  `;
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => {
      out += d;
      if (signal && out.includes('ready\n')) { p.kill(signal); signal = null; }
      if (out.includes('armed\n') && !out.includes('handled')) p.kill('SIGINT');
    });
    p.stderr.on('data', (d) => { err += d; });
    const timer = setTimeout(() => p.kill('SIGKILL'), 30_000);
    p.on('exit', (exitCode, exitSignal) => {
      clearTimeout(timer);
      tmp.cleanup();
      resolve({ code: exitCode, signal: exitSignal, out, err });
    });
  });
}

test('Ctrl-C (SIGINT) with no handler ends the process by SIGINT, as without the DAL', async () => {
  const r = await child('', { signal: 'SIGINT' });
  assert.equal(r.out, 'ready\n');
  assert.deepEqual([r.code, r.signal], [null, 'SIGINT'], r.err);
});

test('a JS SIGINT handler still runs (Go does not take the signal)', async () => {
  const r = await child(`process.on('SIGINT', () => { process.stdout.write('handled\\n'); process.exit(42); });
    process.stdout.write('armed\\n');`, { signal: null });
  // Send SIGINT once the handler is armed.
  assert.match(r.out, /armed/);
  assert.match(r.out, /handled/);
  assert.deepEqual([r.code, r.signal], [42, null], r.err);
});

test('SIGTERM ends the process by SIGTERM', async () => {
  const r = await child('', { signal: 'SIGTERM' });
  assert.deepEqual([r.code, r.signal], [null, 'SIGTERM'], r.err);
});

test('process.exit(7) with queries in flight exits 7 at once', async () => {
  const r = await child('process.exit(7);');
  assert.deepEqual([r.code, r.signal], [7, null], r.err);
});

test('an uncaught exception exits 1 with its message', async () => {
  const r = await child(`throw new Error('boom from the test');`);
  assert.deepEqual([r.code, r.signal], [1, null]);
  assert.match(r.err, /boom from the test/);
  assert.doesNotMatch(r.err, /SIGSEGV|fatal error|goroutine/);
});

test('an unhandled rejection exits 1 with its message', async () => {
  const r = await child(`Promise.reject(new Error('rejected in the test'));`);
  assert.deepEqual([r.code, r.signal], [1, null]);
  assert.match(r.err, /rejected in the test/);
});
