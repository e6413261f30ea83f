// all-paths.test.js -- a short real comparison of every path of
// stress/compare/paths.js (2 runs of a small N each) through this build
// (DALKIT_OUT_DIR): every run completes, loads this build's libdal.so, and
// the table, the JSON, the exit code and the HTML report (checked in
// headless Chromium) carry the same numbers and verdicts.
//
// The verdicts themselves are each path's own tests' subject (ffi_koffi,
// ffi_bun, ffi_deno, node_stress_*, dalstress_*), at counts chosen for a wide
// margin; 100,000 queries is not one for every layer of every path (a CI
// rehearsal on a loaded machine saw node-koffi's rss judged a leak in 1 of 2
// runs), so here a verdict must only be reported consistently.
// Times and rates are only checked for being measured (positive), never
// against a goal: the machine is shared.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { PATHS, PATH_NAMES } from '../../stress/compare/paths.js';
import { checkReportPage, launchChromium } from '../report/page-check.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = mkdtempSync(join(tmpdir(), 'compare-all-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

// Enough queries for every driver to take the monitor's minimum of 6 samples
// after warm-up: the drivers sample at fixed counts (with --workers too, the
// workers paused there: stress/js/sample-points.js), 100 per run, so any
// count gives them all; 100,000 keeps each run to a few seconds.
const QUERIES = 100_000;

test(`all ${PATHS.length} paths, 2 runs each: table, JSON and HTML agree`, async () => {
  const out = process.env.DALKIT_OUT_DIR;
  assert.ok(out, 'DALKIT_OUT_DIR is not set (run through ctest)');
  const json = join(scratch, 'cmp.json');
  const html = join(scratch, 'cmp.html');
  const r = spawnSync(process.execPath, [join(root, 'stress/compare/main.js'), '--out', out, '--queries', String(QUERIES),
    '--runs', '2', '--json', json, '--html', html], { encoding: 'utf8', timeout: 540_000 });
  assert.ok(r.status === 0 || r.status === 1, r.stdout + r.stderr);
  const report = JSON.parse(readFileSync(json, 'utf8'));
  const leaked = report.paths.some((p) => p.summary.verdict !== 'no leak');
  assert.equal(r.status, leaked ? 1 : 0, 'the exit code follows the verdicts');
  assert.equal(r.stdout.includes('COMPARE: a leak was found'), leaked, r.stdout);
  assert.equal(report.schema, 'dalkit-compare-report');
  assert.equal(report.kind, 'compare');
  assert.deepEqual(report.paths.map((p) => p.name), PATH_NAMES);
  assert.equal(report.baseline, PATHS[0].name);
  assert.equal(report.baseline, 'native-direct');
  const libdal = realpathSync(join(out, 'libdal.so'));
  for (const p of report.paths) {
    assert.equal(p.attempts.length, 2, p.name);
    assert.equal(p.runs.length, 2, p.name);
    for (const a of p.attempts) {
      assert.ok(a.status === 'ok' || a.status === 'leak', `${p.name}: ${a.status} ${a.message}`);
      assert.equal(a.dal_loaded, libdal, `${p.name} loaded ${a.dal_loaded}`);
    }
    for (const run of p.runs) {
      assert.equal(run.counts.queries, QUERIES, p.name);
      assert.equal(run.counts.errors, 0, p.name);
      assert.ok(['no leak', 'leak'].includes(run.verdict.overall), `${p.name}: ${run.verdict.overall}`);
    }
    const runsLeaked = p.runs.filter((run) => run.verdict.overall === 'leak').length;
    assert.equal(p.attempts.filter((a) => a.status === 'leak').length, runsLeaked, p.name);
    const s = p.summary;
    assert.equal(s.runs_measured, 2);
    assert.ok(s.queries_per_second.mean > 0 && s.queries_per_second.sd !== null, p.name);
    assert.ok(s.latency_ns.p50 > 0 && s.latency_ns.p50 <= s.latency_ns.p99 && s.latency_ns.p99 <= s.latency_ns.max, p.name);
    assert.ok(s.startup.rss_after_load_bytes > 0 && s.startup.ns_to_first_query > 0, p.name);
    // The bare runtime: measured for each JS path's runs, none under a native one.
    if (PATHS.find((x) => x.name === p.name).runtime === 'native') {
      assert.equal(s.startup.bare_runtime_rss_bytes, null, p.name);
    } else {
      assert.ok(p.attempts.every((a) => a.bare_rss_bytes > 0), p.name);
      assert.ok(s.startup.bare_runtime_rss_bytes > 0 && s.startup.bare_runtime_rss_bytes < s.startup.rss_after_load_bytes, p.name);
      assert.equal(Math.round(s.startup.rss_over_bare_bytes), Math.round(s.startup.rss_after_load_bytes - s.startup.bare_runtime_rss_bytes), p.name);
    }
    assert.ok(s.rss.average_bytes > 0 && s.rss.peak_bytes >= s.rss.average_bytes, p.name);
    // The reference round trip: 87-byte request + 34-byte answer.
    assert.equal(s.bytes_per_query, 121, p.name);
    assert.equal(s.verdict, runsLeaked ? `leak (${runsLeaked}/2 runs)` : 'no leak', p.name);
    // The JS layers are judged in every JS runtime and n/a natively.
    const js = s.layers.find((L) => L.layer === 'js_heap').verdict;
    if (PATHS.find((x) => x.name === p.name).runtime === 'native') assert.equal(js, 'n/a', p.name);
    else assert.notEqual(js, 'n/a', p.name);
  }
  assert.equal(report.comparisons.length, PATHS.length - 1);
  for (const c of report.comparisons) {
    assert.equal(c.runs, 2);
    assert.ok(c.p >= 0 && c.p <= 1 && c.df > 0, c.path);
    assert.ok(c.ci95_low_pct <= c.improvement_pct && c.improvement_pct <= c.ci95_high_pct, c.path);
  }
  // The text table shows the JSON's figures.
  const qpsRow = r.stdout.split('\n').find((l) => l.startsWith('queries per second'));
  for (const p of report.paths) {
    assert.ok(qpsRow.includes(Math.round(p.summary.queries_per_second.mean).toLocaleString('en-US')), `${p.name} in: ${qpsRow}`);
  }
  for (const c of report.comparisons) {
    const line = r.stdout.split('\n').find((l) => l.startsWith(`${c.path} `) && l.includes('%'));
    assert.ok(line && line.includes(`${c.improvement_pct >= 0 ? '+' : ''}${c.improvement_pct.toFixed(2)} %`), `${c.path}: ${line}`);
  }
  assert.match(r.stdout, /Note: node-koffi runs with --workers 1/);
  for (const p of PATHS.filter((x) => x.note)) assert.ok(r.stdout.includes(`Note: ${p.note}`), p.name);
  assert.match(r.stdout, new RegExp(`Multiple comparisons: ${PATHS.length - 1} tests`));
  // The HTML page embeds exactly this report.
  assert.ok(existsSync(html));
  const page = readFileSync(html, 'utf8');
  const m = /<script[^>]*id="report-data"[^>]*>([\s\S]*?)<\/script>/.exec(page);
  assert.ok(m, 'the page embeds its report');
  assert.deepEqual(JSON.parse(m[1]), report);
  // ... and renders in headless Chromium: every chart drawn, the tables show
  // the JSON's numbers, no network request (tests/report/page-check.js).
  const browser = await launchChromium();
  try {
    const drawn = await checkReportPage(browser, html, report);
    assert.ok(drawn.charts >= PATHS.length, `${drawn.charts} charts`);
  } finally {
    await browser.close();
  }
});
