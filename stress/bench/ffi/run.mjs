// stress/bench/ffi/run.mjs -- the FFI benchmarks of docs/benchmarks.md, in one
// run on one database directory (reported, never pass/fail):
//
//   node stress/bench/ffi/run.mjs [--queries N]        (default 1,000,000)
//
// 1. Native direct path: build/out/dalstress --queries N (its "Queries per second").
// 2. The same reference query through Bun FFI, Deno FFI, and koffi on Node's
//    main thread AND in a worker_thread (stress/bench/ffi/loop.js: a timed
//    loop; koffi's main thread gets N/100 queries: each pays Go's
//    stack-bounds refresh).
// 3. The FFI stress commands' own throughput, driver for driver with dalstress.
// 4. Bun FFI vs bun:sqlite (stress/bench/ffi/bun-sqlite.js).
// Binaries: $DALSTRESS (default build/out/dalstress); libdalshim.so as the
// bindings find it ($DALKIT_SHIM or build/out/).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const flag = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = flag('--queries', 1_000_000);
// Rounds: every path runs ROUNDS times, interleaved round by round, and its
// median round is reported (docs/benchmarks.md: drift hits every path alike).
const ROUNDS = flag('--rounds', 3);
const bin = (name) => join(root, 'node_modules', '.bin', name);
const dalstress = process.env.DALSTRESS || join(root, 'build', 'out', 'dalstress');
const dir = mkdtempSync(join(tmpdir(), 'dalkit-bench-ffi-'));

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return r.stdout;
}
const lines = (out) => out.trim().split('\n').map((l) => JSON.parse(l));

// A stress driver's own "Queries per second" (dalstress and the JS drivers print the same report).
function driverQps(path, cmd, args) {
  const qps = Number(/Queries per second: ([\d,]+)/.exec(run(cmd, args))[1].replace(/,/g, ''));
  return { path, queries: N, qps, usPerQuery: 1e6 / qps };
}

// The median round of each path (by name), in first-seen order.
function median(rounds) {
  const by = new Map();
  for (const r of rounds.flat()) by.set(r.path, [...(by.get(r.path) ?? []), r]);
  return [...by.values()].map((rs) => rs.sort((a, b) => a.qps - b.qps)[Math.floor(rs.length / 2)]);
}

const results = [];
try {
  const deno = [bin('deno'), 'run', '--allow-ffi', '--allow-read', '--allow-write', '--allow-env', '--allow-sys'];
  const rounds = [];
  const driverRounds = [];
  const stressFlags = ['--queries', String(N), '--db-dir', dir, '--progress', 'off'];
  const sqliteRounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    rounds.push([driverQps('native direct (dalstress)', dalstress, ['--queries', String(N), '--db-dir', dir, '--progress', 'off'])]);
    rounds.push(lines(run(bin('bun'), ['stress/bench/ffi/loop.js', dir, String(N)])));
    rounds.push(lines(run(deno[0], [...deno.slice(1), 'stress/bench/ffi/loop.js', dir, String(N)])));
    rounds.push(lines(run('node', ['stress/bench/ffi/loop.js', dir, String(N), 'into', 'worker'])));
    rounds.push(lines(run('node', ['stress/bench/ffi/loop.js', dir, String(Math.max(1000, N / 100)), 'into', 'main'])));
    // The stress commands themselves: the same driver work as dalstress
    // (latency timing, a monitor sample with forced GCs every 1 %).
    driverRounds.push([
      driverQps('bun stress.ts', bin('bun'), ['stress.ts', ...stressFlags]),
      driverQps('deno stress.ts', deno[0], [...deno.slice(1), 'stress.ts', ...stressFlags]),
      driverQps('npm run stress -- --via koffi --workers 1', 'node', ['stress/node/main.js', '--via', 'koffi', '--workers', '1', ...stressFlags]),
    ]);
    sqliteRounds.push(lines(run(bin('bun'), ['stress/bench/ffi/bun-sqlite.js', dir, String(N)])));
  }
  results.push(...median(rounds));
  const vsSqlite = median(sqliteRounds);

  const base = results[0].qps;
  console.log(`| path (${N.toLocaleString('en-US')} reference queries, median of ${ROUNDS}) | queries/s | us/query | vs native |`);
  console.log('|---|---:|---:|---:|');
  for (const r of results) {
    console.log(`| ${r.path} | ${Math.round(r.qps).toLocaleString('en-US')} | ${r.usPerQuery.toFixed(2)} | ${(r.qps / base).toFixed(2)}x |`);
  }
  const drivers = median(driverRounds);
  console.log('');
  console.log(`| stress command (${N.toLocaleString('en-US')} queries, median of ${ROUNDS}) | queries/s | vs dalstress |`);
  console.log('|---|---:|---:|');
  for (const r of [results[0], ...drivers]) {
    console.log(`| ${r.path} | ${Math.round(r.qps).toLocaleString('en-US')} | ${(r.qps / base).toFixed(2)}x |`);
  }
  console.log('');
  console.log(`| Bun FFI vs bun:sqlite (${N.toLocaleString('en-US')} queries, median of ${ROUNDS}) | us/query |`);
  console.log('|---|---:|');
  for (const r of vsSqlite) console.log(`| ${r.path} | ${r.usPerQuery.toFixed(2)} |`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
