// `npm run stress` (stress/node/main.js): a short clean run judged "no leak",
// both planted JS leaks caught in their own layer at 16 B/query over 1M
// queries, the other APIs and modes, the workloads (a wrong expected value
// caught), bad flags and workload files, and Ctrl-C.  Checked on the
// exit code, the text report and the JSON report (docs/report-schema.md).
//
// ctest runs each group as its own test (tests/node/CMakeLists.txt,
// --test-name-pattern), so the two 1M-query plant runs go in parallel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { root, tempDir } from './helpers.js';

const MAIN = join(root, 'stress', 'node', 'main.js');

function stress(args, { interruptAfter = null } = {}) {
  const tmp = tempDir('dalkit-node-stress-');
  const json = join(tmp.dir, 'report.json');
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [MAIN, '--json', json, '--progress', 'plain', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => {
      err += d;
      // The plain progress line says how far the run is: interrupt mid-run.
      if (interruptAfter && /\d+\.\d%/.test(err)) { p.kill(interruptAfter); interruptAfter = null; }
    });
    p.on('exit', (code, signal) => {
      let report = null;
      try { report = JSON.parse(readFileSync(json, 'utf8')); } catch { /* none written */ }
      tmp.cleanup();
      resolve({ code, signal, out, err, report });
    });
  });
}

const leaking = (r) => r.report.verdict.leaking_layers;
const layer = (r, name) => r.report.layers.find((l) => l.layer === name);

function assertClean(r, queries) {
  assert.equal(r.code, 0, `${r.out}\n${r.err}`);
  assert.match(r.out, /VERDICT: NO LEAK/);
  assert.deepEqual(leaking(r), []);
  assert.equal(r.report.counts.queries, queries);
  assert.equal(r.report.counts.errors, 0);
  for (const name of ['js_heap', 'js_external', 'rss', 'malloc', 'go_heap', 'sqlite']) {
    assert.equal(layer(r, name).verdict, 'no leak', `${name} is measured and clean`);
  }
}

test('clean: 200k reference queries, no leak in any layer', async () => {
  const r = await stress(['--queries', '200000']);
  assertClean(r, 200000);
  assert.equal(r.report.run.driver, 'node-addon');
  assert.equal(r.report.run.mode, 'into workload reference');
  // 87 + 34 bytes per round trip, every one counted.
  assert.equal(r.report.counts.bytes_in + r.report.counts.bytes_out, 121 * 200000);
});

test('clean: builder, raw, async and 2 workers', async () => {
  const runs = [[60000, ['--api', 'builder']], [60000, ['--api', 'raw', '--async']],
    [60000, ['--api', 'builder', '--async']], [300000, ['--workers', '2']]];
  for (const [n, args] of runs) {
    const r = await stress(['--queries', String(n), ...args]);
    assertClean(r, n);
    // Samples at every multiple of queries/100, with --workers too (the
    // workers paused there: stress/js/sample-points.js): START after query
    // 1, 99 sample points, END.
    const every = n / 100;
    assert.deepEqual(r.report.samples.map((x) => x.queries), [1, ...Array.from({ length: 99 }, (_, k) => every * (k + 1)), n]);
  }
});

// The workloads of stress/workloads (docs/workloads.md), each answer checked.
test('workload rows, write and mixed through every API: every answer right, no leak', async () => {
  const runs = [['rows', 20000, []], ['mixed', 100000, ['--workers', '2']], ['write', 10000, ['--api', 'builder']],
    ['mixed', 10000, ['--api', 'builder', '--async']], ['rows', 10000, ['--api', 'raw', '--async']]];
  for (const [workload, n, args] of runs) {
    const r = await stress(['--workload', workload, '--queries', String(n), ...args]);
    assertClean(r, n);
    assert.match(r.err, new RegExp(`^node-stress: workload ${workload}, `, 'm'));
    assert.match(r.report.run.mode, new RegExp(` workload ${workload}$`));
  }
});

// A copy of rows.json whose expected qty is off by one: every answer is wrong.
function corruptedRows(dir) {
  const text = readFileSync(join(root, 'stress', 'workloads', 'rows.json'), 'utf8');
  const wrong = text.replace('{"$": "row * 7 % 100"}', '{"$": "row * 7 % 100 + 1"}');
  assert.notEqual(wrong, text);
  const file = join(dir, 'rows-corrupted.json');
  writeFileSync(file, wrong);
  return file;
}

test('workload: a wrong expected value is a wrong answer, named by request id and path; exit 2', async () => {
  const tmp = tempDir('dalkit-node-workload-');
  try {
    const file = corruptedRows(tmp.dir);
    for (const [api, path] of [['into', /r\[0\]\[3\]: expected integer \d+, got integer \d+/], ['builder', /r\[0\]\.qty: expected integer \d+, got integer \d+/]]) {
      const r = await stress(['--workload', file, '--queries', '300', '--api', api]);
      assert.equal(r.code, 2, `${api}: ${r.out}\n${r.err}`);
      assert.match(r.err, /wrong answer to request \d+/);
      assert.match(r.err, path, api);
      assert.equal(r.report.counts.errors, 300);
    }
  } finally {
    tmp.cleanup();
  }
});

test('plant js_heap:16 over 1M queries: exit 1, js_heap named', async () => {
  const r = await stress(['--queries', '1000000', '--plant-leak', 'js_heap:16']);
  assert.equal(r.code, 1, `${r.out}\n${r.err}`);
  assert.ok(leaking(r).includes('js_heap'), `leaking: ${leaking(r)}`);
  // Retained strings are on the JS heap (and so resident): nothing else.
  for (const l of leaking(r)) assert.ok(['js_heap', 'rss'].includes(l), `unexpected layer ${l}`);
  assert.match(r.out, /VERDICT: LEAK in .*js_heap/);
});

test('plant js_external:16 over 1M queries: exit 1, js_external named', async () => {
  const r = await stress(['--queries', '1000000', '--plant-leak', 'js_external:16']);
  assert.equal(r.code, 1, `${r.out}\n${r.err}`);
  assert.ok(leaking(r).includes('js_external'), `leaking: ${leaking(r)}`);
  // Array buffer backing stores are malloc'ed and resident: those may show too.
  for (const l of leaking(r)) assert.ok(['js_external', 'malloc', 'rss'].includes(l), `unexpected layer ${l}`);
});

test('flags: --help exits 0, bad flags exit 2 with the usage', async () => {
  const help = await stress(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /usage: node-stress/);
  for (const bad of [['--queries', '0'], ['--queries', 'x'], ['--api', 'nope'], ['--plant-leak', 'js_heap'],
    ['--plant-leak', 'js_heap:0'], ['--plant-leak', 'bogus:16'], ['--workers', '-1'], ['--warmup-share', '0.95'],
    ['--nope'], ['positional'], ['--monitor-param', 'novalue']]) {
    const r = await stress(bad);
    assert.equal(r.code, 2, `${bad.join(' ')}: ${r.err}`);
    assert.match(r.err, /usage: node-stress/, bad.join(' '));
  }
});

test('flags: a broken or unknown workload exits 2 before the DAL is loaded, saying what is wrong', async () => {
  const tmp = tempDir('dalkit-node-workload-');
  try {
    const broken = join(tmp.dir, 'broken.json');
    const text = readFileSync(join(root, 'stress', 'workloads', 'rows.json'), 'utf8');
    writeFileSync(broken, text.replace('"(n * 37 + t * 11) % 100"', '"(n * 37 + tt * 11) % 100"'));
    for (const [workload, says] of [[broken, /steps\[0\]\.let\.key: expression .*unknown variable "tt"/],
      ['nosuch', /unknown workload "nosuch"/], [join(tmp.dir, 'missing.json'), /cannot read workload/]]) {
      const r = await stress(['--workload', workload, '--queries', '1000']);
      assert.equal(r.code, 2, r.err);
      assert.match(r.err, says);
      assert.equal(r.out, '');      // no run, no report
      assert.equal(r.report, null);
    }
  } finally {
    tmp.cleanup();
  }
});

test('Ctrl-C: the run stops, the report says interrupted, exit 2', async () => {
  // --progress line: a progress line every 250 ms, so the run is interrupted
  // a moment after it has started.
  const r = await stress(['--queries', '100000000', '--progress', 'line'], { interruptAfter: 'SIGINT' });
  assert.equal(r.code, 2, r.err);
  assert.equal(r.signal, null);
  assert.match(r.out, /interrupted/);
  assert.equal(r.report.verdict.exit_code, 2);
});

test('Ctrl-C during setup: npm run stress says interrupted and exits 130, not "setup failed"', async () => {
  // stress/node/stress.sh in a scratch tree whose scripts/setup.sh ends the
  // way bash ends on SIGINT (130), and one whose setup really fails (1).
  for (const [rc, code, says] of [[130, 130, /stress: interrupted/], [1, 2, /stress: setup failed/]]) {
    const tmp = tempDir('dalkit-node-stress-sh-');
    try {
      mkdirSync(join(tmp.dir, 'stress', 'node'), { recursive: true });
      mkdirSync(join(tmp.dir, 'scripts', 'lib'), { recursive: true });
      copyFileSync(join(root, 'stress', 'node', 'stress.sh'), join(tmp.dir, 'stress', 'node', 'stress.sh'));
      copyFileSync(join(root, 'scripts', 'lib', 'run_setup.sh'), join(tmp.dir, 'scripts', 'lib', 'run_setup.sh'));
      writeFileSync(join(tmp.dir, 'scripts', 'setup.sh'), `exit ${rc}\n`);
      const r = spawnSync('bash', [join(tmp.dir, 'stress', 'node', 'stress.sh')], { encoding: 'utf8' });
      assert.equal(r.status, code, r.stderr);
      assert.match(r.stderr, says);
    } finally {
      tmp.cleanup();
    }
  }
});
