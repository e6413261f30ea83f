// `npm run stress -- --target FILE` (stress/js/target.js, docs/targets.md):
// the shipped examples clean on Node, the kit's DAL as a target judged like
// --workload reference (its layers present, a planted leak in the same
// layer), failures (a throw, a hang, setup and teardown) ending the run with
// exit 2 and naming the iteration, --concurrency, --workers, a relative FILE
// from npm's INIT_CWD, and the flags a target refuses.  Checked on the exit
// code, the text report and the JSON report (docs/report-schema.md).
//
// ctest runs each group as its own test (tests/node/CMakeLists.txt,
// --test-name-pattern).  Counts are the smallest that give a verdict its
// samples (docs/leak-verdict.md: 6 after warm-up; these runs take 50) and, for
// the plant, the required catch of 12.8 MB after warm-up (64 B x 250,000).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { root, tempDir } from './helpers.js';

const MAIN = join(root, 'stress', 'node', 'main.js');
const TARGETS = join(root, 'stress', 'targets');
const PROCESS_LAYERS = ['js_heap', 'js_external', 'rss', 'malloc'];
// The DAL's layers on SQLite (the pg_* ones need a PostgreSQL handle).
const ALL_LAYERS = [...PROCESS_LAYERS, 'go_heap', 'sqlite', 'dal_buffers', 'shim_buffers', 'statements', 'goroutines'];

/** Run the Node driver; resolves {code, out, err, report}. */
function stress(args, { cwd = root, env = {} } = {}) {
  const tmp = tempDir('dalkit-target-');
  const json = join(tmp.dir, 'report.json');
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--expose-gc', MAIN, '--json', json, '--progress', 'off', ...args],
      { stdio: ['ignore', 'pipe', 'pipe'], cwd, env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { err += d; });
    p.on('exit', (code) => {
      let report = null;
      try { report = JSON.parse(readFileSync(json, 'utf8')); } catch { /* none written */ }
      tmp.cleanup();
      resolve({ code, out, err, report });
    });
  });
}

/** A target module written for one test. */
function targetFile(dir, name, source) {
  const file = join(dir, name);
  writeFileSync(file, source);
  return file;
}

const layerNames = (r) => r.report.layers.map((l) => l.layer);
// A --target runs under the allocation tracer by default: its native:<dso>
// layers follow the fixed ones (docs/attribution.md).
const fixedLayers = (r) => layerNames(r).filter((n) => !n.startsWith('native:'));
const nativeLayers = (r) => layerNames(r).filter((n) => n.startsWith('native:'));
const verdictOf = (r, name) => r.report.layers.find((l) => l.layer === name)?.verdict;

function assertCleanTarget(r, iterations, layers = PROCESS_LAYERS) {
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  assert.match(r.out, /VERDICT: NO LEAK \(exit code 0\)/);
  assert.equal(r.report.version, 3);
  assert.equal(r.report.run.unit, 'iteration');
  assert.equal(r.report.counts.queries, iterations);
  assert.deepEqual(fixedLayers(r), layers);
  assert.ok(nativeLayers(r).includes('native:runtime'), layerNames(r).join(' '));
  for (const l of layerNames(r)) assert.equal(verdictOf(r, l), 'no leak', l);
  // The report speaks of iterations, never of queries.
  assert.match(r.out, new RegExp(`planned ${iterations.toLocaleString('en-US')} iterations`));
  assert.match(r.out, /Iterations per second: /);
  assert.doesNotMatch(r.out, /quer/i);
}

const RUN = ['--iterations', '20000', '--sample-every', '400'];

test('examples: better-sqlite3 is clean, with only the process layers', async () => {
  const r = await stress(['--target', join(TARGETS, 'better-sqlite3.mjs'), ...RUN]);
  assertCleanTarget(r, 20000);
  assert.match(r.report.run.mode, /target better-sqlite3 prepared statements/);
  // Not even as n/a: the DAL was never loaded.
  for (const gone of ['go_heap', 'sqlite', 'dal_buffers', 'shim_buffers', 'statements', 'goroutines']) {
    assert.doesNotMatch(r.out, new RegExp(`\\n  ${gone} `), gone);
  }
});

test('examples: libc-ffi through koffi is clean', async () => {
  assertCleanTarget(await stress(['--target', join(TARGETS, 'libc-ffi.mjs'), ...RUN]), 20000);
});

test('examples: the DAL as a target is clean and has every layer', async () => {
  const r = await stress(['--target', join(TARGETS, 'dal.mjs'), ...RUN]);
  assertCleanTarget(r, 20000, ALL_LAYERS);
});

test('plant: the DAL target and --workload reference find go_cmem in the same layers', async () => {
  // In parallel: the same plant through the target and through the workload
  // (--attribute: a target has it by default, a workload does not).
  const [t, w] = await Promise.all([
    stress(['--target', join(TARGETS, 'dal.mjs'), '--target-option', 'plant=go_cmem:64', '--iterations', '250000']),
    stress(['--workload', 'reference', '--plant-leak', 'go_cmem:64', '--queries', '250000', '--attribute']),
  ]);
  assert.equal(t.code, 1, `${t.out}\n${t.err}`);
  assert.equal(w.code, 1, `${w.out}\n${w.err}`);
  assert.ok(t.report.verdict.leaking_layers.includes('malloc'), t.out);
  assert.match(t.out, /VERDICT: LEAK in .*malloc/);
  // Both name the DSO that allocated: Go's C.malloc in libdal.so.
  for (const r of [t, w]) assert.equal(verdictOf(r, 'native:libdal.so'), 'leak', r.out);
  assert.deepEqual(fixedLayers(t), fixedLayers(w));
  // Every layer but rss (page-granular, the noisiest: docs/leak-verdict.md)
  // gets the same verdict through both.
  for (const l of ALL_LAYERS.filter((x) => x !== 'rss')) assert.equal(verdictOf(t, l), verdictOf(w, l), l);
  assert.equal(t.report.samples.at(-1).planted_bytes, w.report.samples.at(-1).planted_bytes);
});

test('failures: a throw at iteration 7 exits 2 naming it, with the stack', async () => {
  const tmp = tempDir();
  try {
    const file = targetFile(tmp.dir, 'throws.mjs', `
      function deepInTheLibrary(i) { throw new RangeError('boom at ' + i); }
      export default { iteration(state, i) { if (i === 7) deepInTheLibrary(i); } };
    `);
    const r = await stress(['--target', file, '--iterations', '1000']);
    assert.equal(r.code, 2, `${r.out}\n${r.err}`);
    assert.match(r.err, /target throws\.mjs: iteration 7 threw: RangeError: boom at 7\n/);
    // The stack, indented under the message.
    assert.match(r.err, /\n {4}RangeError: boom at 7\n {8}at deepInTheLibrary \(file:\/\/.*throws\.mjs:2:/);
    assert.ok(r.report.verdict.errors.some((e) => /iteration 7 threw: RangeError: boom at 7/.test(e)), r.out);
    assert.equal(r.report.counts.queries, 7); // iterations 0..6 finished
    assert.match(r.out, /ERROR: target throws\.mjs: iteration 7 threw/);
  } finally {
    tmp.cleanup();
  }
});

test('failures: an iteration that never settles exits 2 after --iteration-timeout', async () => {
  const tmp = tempDir();
  try {
    const file = targetFile(tmp.dir, 'hangs.mjs', `
      export default { iteration(state, i) { if (i === 3) return new Promise(() => {}); return Promise.resolve(); } };
    `);
    const r = await stress(['--target', file, '--iterations', '1000', '--iteration-timeout', '300']);
    assert.equal(r.code, 2, `${r.out}\n${r.err}`);
    assert.match(r.err, /iteration 3 did not settle within 300 ms \(--iteration-timeout\)/);
    assert.ok(r.report.verdict.errors.some((e) => /iteration 3 did not settle/.test(e)));
  } finally {
    tmp.cleanup();
  }
});

test('failures: a rejection, setup and teardown exit 2 with a clear message', async () => {
  const tmp = tempDir();
  try {
    const rejects = targetFile(tmp.dir, 'rejects.mjs', `
      export default { async iteration(state, i) { if (i === 12) throw new TypeError('no such image'); } };
    `);
    const setup = targetFile(tmp.dir, 'setup.mjs', `
      export default { setup() { throw new Error('cannot find libfoo.so'); }, iteration() {} };
    `);
    const teardown = targetFile(tmp.dir, 'teardown.mjs', `
      export default { iteration() {}, async teardown() { throw new Error('double free'); } };
    `);
    const [r1, r2, r3] = await Promise.all([
      stress(['--target', rejects, '--iterations', '100']),
      stress(['--target', setup, '--iterations', '100']),
      stress(['--target', teardown, '--iterations', '1000', '--sample-every', '100']),
    ]);
    assert.equal(r1.code, 2, r1.err);
    assert.match(r1.err, /iteration 12 rejected: TypeError: no such image\n {4}TypeError: no such image\n {8}at /);
    assert.equal(r2.code, 2, r2.err);
    assert.match(r2.err, /target setup\.mjs: setup threw: Error: cannot find libfoo\.so\n {4}Error: cannot find libfoo\.so\n {8}at /);
    assert.equal(r2.report, null, 'setup failed before the monitor started');
    // The run itself was clean; the teardown's failure still makes it exit 2.
    assert.equal(r3.code, 2, r3.err);
    assert.match(r3.out, /ERROR: target teardown\.mjs: teardown rejected: Error: double free/);
    assert.deepEqual(r3.report.verdict.leaking_layers, []);
  } finally {
    tmp.cleanup();
  }
});

test('concurrency: --concurrency 4 keeps exactly 4 async iterations in flight', async () => {
  const tmp = tempDir();
  try {
    const seen = join(tmp.dir, 'seen.json');
    const file = targetFile(tmp.dir, 'async.mjs', `
      import { writeFileSync } from 'node:fs';
      export default {
        setup(ctx) { return { inFlight: 0, most: 0, out: ctx.options.out }; },
        async iteration(s) {
          s.inFlight++;
          s.most = Math.max(s.most, s.inFlight);
          await new Promise((resolve) => setImmediate(resolve));
          s.inFlight--;
        },
        teardown(s) { writeFileSync(s.out, JSON.stringify({ most: s.most, left: s.inFlight })); },
      };
    `);
    const r = await stress(['--target', file, '--concurrency', '4', '--target-option', `out=${seen}`, ...RUN]);
    assertCleanTarget(r, 20000);
    assert.match(r.report.run.mode, /^concurrency 4 target async\.mjs/);
    assert.deepEqual(JSON.parse(readFileSync(seen, 'utf8')), { most: 4, left: 0 });
    // Every sample with nothing in flight, at its count: START after
    // iteration 0, every multiple of 400, END.
    assert.deepEqual(r.report.samples.map((x) => x.queries), [1, ...Array.from({ length: 49 }, (_, k) => 400 * (k + 1)), 20000]);
  } finally {
    tmp.cleanup();
  }
});

test('--confirm: a borderline verdict is run again with twice the iterations, whose verdict stands', async () => {
  const tmp = tempDir();
  try {
    // About 430 B of JS heap kept per iteration from iteration 38,000 on: at
    // 76 % of a 50,000-iteration run it rises in the last block only, so
    // "no leak" by the 2/3 rule, but borderline (docs/leak-verdict.md).  The
    // run --confirm adds (100,000 iterations) sees it from 38 % on: a leak.
    const file = targetFile(tmp.dir, 'late-leak.mjs', `
      export default {
        setup() { return { keep: [] }; },
        iteration(s, i) { if (i >= 38000) s.keep.push(new Array(48).fill(i)); },
        teardown(s) { s.keep.length = 0; },
      };
    `);
    const r = await stress(['--target', file, '--iterations', '50000', '--confirm', '--no-attribute']);
    assert.equal(r.code, 1, `${r.out}\n${r.err}`);
    const [firstReport, secondReport] = r.out.split(/(?=dalkit stress run: )/);
    assert.ok(secondReport, r.out);
    assert.match(firstReport, /BORDERLINE: js_heap no leak: /);
    assert.match(firstReport, /--confirm repeats it with 100,000 iterations/);
    assert.match(firstReport, /VERDICT: NO LEAK \(exit code 0\)/);
    assert.match(r.err, /the verdict is borderline: running again with 100000 iterations in .*confirm \(--confirm\)/);
    assert.match(secondReport, /CONFIRMATION: the run of 50,000 iterations was borderline \(NO LEAK; borderline in [^)]*js_heap[^)]*\); this run repeated it with 100,000 iterations \(--confirm\) and its verdict stands/);
    assert.match(secondReport, /VERDICT: LEAK in [^\n]*js_heap/);
    // --json is the confirmation run's, naming the first.
    assert.equal(r.report.run.queries_planned, 100000);
    assert.equal(r.report.counts.queries, 100000);
    assert.equal(r.report.verdict.exit_code, 1);
    assert.deepEqual([r.report.verdict.confirms.queries_planned, r.report.verdict.confirms.exit_code], [50000, 0]);
    assert.ok(r.report.verdict.confirms.borderline_layers.includes('js_heap'));
  } finally {
    tmp.cleanup();
  }
});

test('workers: each worker sets up its own state in its own directory', async () => {
  const tmp = tempDir();
  try {
    const file = targetFile(tmp.dir, 'workers.mjs', `
      import { writeFileSync } from 'node:fs';
      import { join } from 'node:path';
      export default {
        setup(ctx) { return { ctx, n: 0 }; },
        iteration(s) { s.n++; },
        teardown(s) {
          const { ctx } = s;
          writeFileSync(join(ctx.options.out, 'worker-' + ctx.workerIndex + '.json'),
            JSON.stringify({ dir: ctx.dir, runtime: ctx.runtime, workers: ctx.workers, iterations: ctx.iterations, ran: s.n }));
        },
      };
    `);
    // Iterations of no cost, and still a sample at every multiple of 700
    // (the workers paused there: stress/js/sample-points.js): START at 0
    // (the target runs in the workers only), 85 sample points, END.
    const r = await stress(['--target', file, '--workers', '2', '--target-option', `out=${tmp.dir}`,
      '--iterations', '60000', '--sample-every', '700']);
    assert.equal(r.code, 0, `${r.out}\n${r.err}`);
    assert.equal(r.report.counts.queries, 60000);
    assert.deepEqual(r.report.samples.map((x) => x.queries), [0, ...Array.from({ length: 85 }, (_, k) => 700 * (k + 1)), 60000]);
    assert.equal(r.report.run.threads, 2);
    const seen = readdirSync(tmp.dir).filter((f) => f.startsWith('worker-')).sort()
      .map((f) => JSON.parse(readFileSync(join(tmp.dir, f), 'utf8')));
    assert.equal(seen.length, 2);
    assert.notEqual(seen[0].dir, seen[1].dir);
    for (const [i, s] of seen.entries()) {
      assert.match(s.dir, new RegExp(`worker-${i}$`));
      assert.equal(s.runtime, 'node');
      assert.equal(s.workers, 2);
      assert.equal(s.ran, s.iterations); // every iteration of its share, i = 0..share-1
    }
    assert.equal(seen[0].iterations + seen[1].iterations, 60000);
  } finally {
    tmp.cleanup();
  }
});

test('flags: a relative FILE starts at INIT_CWD; --html writes the page', async () => {
  const tmp = tempDir();
  try {
    targetFile(tmp.dir, 'local.mjs', 'export default { iteration() {} };');
    const html = join(tmp.dir, 'report.html');
    // As npm runs it: from the package root, with the user's directory in INIT_CWD.
    const r = await stress(['--target', 'local.mjs', '--html', html, ...RUN],
      { cwd: root, env: { npm_lifecycle_event: 'stress', INIT_CWD: tmp.dir } });
    assertCleanTarget(r, 20000);
    // The page embeds the monitor's report, which the page's words follow.
    const page = readFileSync(html, 'utf8');
    const embedded = /<script type="application\/json" id="report-data">([^]*?)<\/script>/.exec(page)[1];
    assert.equal(JSON.parse(embedded).run.unit, 'iteration');
  } finally {
    tmp.cleanup();
  }
});

test('flags: what a target refuses, and modules that are not targets', async () => {
  const tmp = tempDir();
  try {
    const none = targetFile(tmp.dir, 'none.mjs', 'export default { setup() {} };');
    const cases = [
      [['--target', join(TARGETS, 'libc-ffi.mjs'), '--queries', '10'], /option --queries is for the DAL's workloads, not a --target \(count iterations with --iterations\)/],
      [['--target', join(TARGETS, 'libc-ffi.mjs'), '--workload', 'rows'], /option --workload is for the DAL's workloads/],
      [['--target', join(TARGETS, 'libc-ffi.mjs'), '--plant-leak', 'go_cmem:16'], /go_cmem is planted by the kit's DAL, which a --target does not load/],
      [['--iterations', '10'], /option --iterations needs --target FILE/],
      [['--concurrency', '2'], /option --concurrency needs --target FILE/],
      [['--target', join(TARGETS, 'libc-ffi.mjs'), '--concurrency', '0'], /option --concurrency: '0' is not an integer in 1\.\.65536/],
      [['--target', none], /none\.mjs: no iteration\(state, i\) function/],
      [['--target', join(tmp.dir, 'missing.mjs')], /cannot import target .*missing\.mjs/],
    ];
    const runs = await Promise.all(cases.map(([args]) => stress(args)));
    runs.forEach((r, k) => {
      assert.equal(r.code, 2, `${cases[k][0].join(' ')}: ${r.err}`);
      assert.match(r.err, cases[k][1]);
    });
  } finally {
    tmp.cleanup();
  }
});
