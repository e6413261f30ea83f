// The --target examples under Bun (`bun stress.ts`) and Deno (`deno run
// stress.ts`, as `npm run stress:deno`): clean, with the layers that exist,
// counted in iterations; and a failing target exits 2 naming its iteration
// there too.  better-sqlite3.mjs under Bun runs bun:sqlite (Bun refuses
// better-sqlite3, docs/targets.md) and must say so in its name.  Needs
// DALKIT_SHIM (the monitor is in libdalshim.so); bun and deno are npm
// devDependencies (node_modules/.bin), missing ones fail the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { root, tempDir } from './helpers.js';

const BIN = join(root, 'node_modules', '.bin');
const TARGETS = join(root, 'stress', 'targets');
const PROCESS_LAYERS = ['js_heap', 'js_external', 'rss', 'malloc'];
// The DAL's layers on SQLite (the pg_* ones need a PostgreSQL handle).
const ALL_LAYERS = [...PROCESS_LAYERS, 'go_heap', 'sqlite', 'dal_buffers', 'shim_buffers', 'statements', 'goroutines'];
const COMMAND = {
  bun: [join(BIN, 'bun'), join(root, 'stress.ts')],
  deno: [join(BIN, 'deno'), 'run', '--v8-flags=--expose-gc', '--allow-ffi', '--allow-read', '--allow-write', '--allow-env', '--allow-sys', join(root, 'stress.ts')],
};
const RUN = ['--iterations', '20000', '--sample-every', '400'];

function stress(runtime, args) {
  const tmp = tempDir('dalkit-target-rt-');
  const json = join(tmp.dir, 'report.json');
  const [program, ...fixed] = COMMAND[runtime];
  return new Promise((resolve) => {
    const p = spawn(program, [...fixed, '--json', json, '--progress', 'off', ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd: root });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { err += d; });
    p.on('error', (e) => { err += `spawn ${program}: ${e.message}`; });
    p.on('close', (code) => {
      let report = null;
      try { report = JSON.parse(readFileSync(json, 'utf8')); } catch { /* none written */ }
      tmp.cleanup();
      resolve({ code, out, err, report });
    });
  });
}

function assertClean(r, layers) {
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  assert.match(r.out, /VERDICT: NO LEAK \(exit code 0\)/);
  assert.equal(r.report.run.unit, 'iteration');
  assert.equal(r.report.counts.queries, 20000);
  // A --target runs under the allocation tracer by default: Bun starts
  // itself again under it (its own heap is invisible: native:runtime n/a),
  // Deno only with --allow-run, which this command does not give.
  const names = r.report.layers.map((l) => l.layer);
  assert.deepEqual(names.filter((n) => !n.startsWith('native:')), layers);
  const native = r.report.layers.filter((l) => l.layer.startsWith('native:'));
  if (r.report.run.driver.startsWith('bun')) {
    assert.equal(native.find((l) => l.layer === 'native:runtime')?.verdict, 'n/a', names.join(' '));
    for (const l of native) assert.ok(['no leak', 'n/a'].includes(l.verdict), `${l.layer}: ${l.verdict}`);
  } else {
    assert.deepEqual(native, []);
    assert.match(r.err, /no native attribution .*--allow-run/);
  }
  assert.doesNotMatch(r.out, /quer/i);
}

for (const runtime of ['bun', 'deno']) {
  test(`${runtime}: libc-ffi through the runtime's FFI is clean`, async () => {
    assertClean(await stress(runtime, ['--target', join(TARGETS, 'libc-ffi.mjs'), ...RUN]), PROCESS_LAYERS);
  });

  test(`${runtime}: the DAL as a target has every layer and is clean`, async () => {
    assertClean(await stress(runtime, ['--target', join(TARGETS, 'dal.mjs'), ...RUN]), ALL_LAYERS);
  });

  test(`${runtime}: a throw at iteration 7 exits 2 naming it, with the stack`, async () => {
    const tmp = tempDir();
    try {
      const file = join(tmp.dir, 'throws.mjs');
      writeFileSync(file, `function inTheBinding(i) { throw new Error('boom at ' + i); }
export default { iteration(state, i) { if (i === 7) inTheBinding(i); } };\n`);
      const r = await stress(runtime, ['--target', file, '--iterations', '1000']);
      assert.equal(r.code, 2, `${r.out}\n${r.err}`);
      assert.match(r.err, /iteration 7 threw: Error: boom at 7\n/);
      assert.match(r.err, /inTheBinding/); // the stack
    } finally {
      tmp.cleanup();
    }
  });
}

test('bun: better-sqlite3.mjs runs its statements through bun:sqlite and says so', async () => {
  const r = await stress('bun', ['--target', join(TARGETS, 'better-sqlite3.mjs'), ...RUN]);
  assertClean(r, PROCESS_LAYERS);
  assert.match(r.report.run.mode, /bun:sqlite \(better-sqlite3 does not load in Bun\)/);
});
