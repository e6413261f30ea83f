// page-check.js -- opens an HTML report (stress/report/) in Debian's headless
// Chromium through playwright-core and checks it the way a reader would
// rely on it:
//   - it made no network request: every request is the file:// page itself
//     or a data:/blob: URL, and the page's Content-Security-Policy saw no
//     attempt to load anything;
//   - every chart has drawn: as many uPlot charts as the report has judged
//     layers (+ one latency chart per timed run or path), each with opaque
//     pixels of its data series' colour in its canvas (the fitted line is
//     drawn translucent, so it does not count);
//   - the tables show the report's numbers: each cell's data-value is the
//     JSON value, and the text shown parses back to it within the rounding of
//     its display unit.
// Used by tests/report/html-report.test.js and by stress:compare's test
// (tests/compare/all-paths.test.js).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * A fresh headless Chromium (Debian's package; background networking off, as
 * this machine's closed network needs).  Returns {context, close()}.
 */
export async function launchChromium() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} not found: install the Debian package chromium (scripts/deps.sh does)`);
  }
  const { chromium } = await import('playwright-core');
  // A new, empty profile per launch: nothing from an earlier run is reused.
  const profile = mkdtempSync(join(tmpdir(), 'dalkit-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1200, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

function judged(r) {
  return r.layers.filter((L) => L.verdict !== 'n/a' && r.summary[L.metric] && r.summary[L.metric].available).length;
}

/** Charts the page must draw for `report` (a monitor report or a comparison). */
export function expectedCharts(report) {
  if (report.kind === 'compare') {
    return report.paths.reduce((n, p) => {
      if (!p.runs || !p.runs.length) return n;
      return n + judged(p.runs[0]) + (p.runs.some((r) => r.latency_ns && r.latency_ns.count > 0) ? 1 : 0);
    }, 0);
  }
  return judged(report) + (report.latency_ns && report.latency_ns.count > 0 ? 1 : 0);
}

// Displayed text -> {value, step}: the number in base units and the
// rounding step of its display ("1.25 MiB" -> 1310720, step 0.01 MiB).
const UNITS = { MiB: 1048576, KiB: 1024, B: 1, ns: 1, 'µs': 1e3, ms: 1e6, s: 1, '%': 1, 'B/q': 1e6, '/Mq': 1 };
export function parseShown(text) {
  const m = /^(?:> )?([+-]?[0-9,]+(?:\.([0-9]+))?)(?: ?(MiB|KiB|B\/q|B|ns|µs|ms|s|%|\/Mq))?(?: ± .*)?$/.exec(text.trim());
  if (!m) return null;
  const scale = UNITS[m[3]] ?? 1;
  const decimals = m[2] ? m[2].length : 0;
  return { value: Number(m[1].replace(/,/g, '')) * scale, step: 10 ** -decimals * scale };
}

function assertShown(text, expected, what) {
  if (expected === null || expected === undefined) {
    assert.equal(text, 'n/a', `${what}: shows '${text}' for a null`);
    return;
  }
  const p = parseShown(text);
  assert.ok(p, `${what}: '${text}' is not a number with a unit`);
  // Half a display step (rounding), and a hair for binary floating point.
  const tol = p.step / 2 + Math.abs(expected) * 1e-12 + 1e-9;
  assert.ok(Math.abs(p.value - expected) <= tol, `${what}: shows '${text}' (${p.value}), the report says ${expected}`);
}

function assertCell(c, expected, what) {
  assert.ok(c, `${what}: no such cell`);
  const want = expected === null || expected === undefined ? 'null' : String(expected);
  assert.equal(c.value, want, `${what}: data-value`);
  if (typeof expected === 'number' || expected === null) assertShown(c.text, expected, what);
}

async function tableCells(page, id) {
  return page.evaluate((tid) => {
    const t = document.getElementById(tid);
    if (!t) return null;
    const head = [...t.querySelectorAll('thead th')].map((th) => th.textContent);
    const rows = [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((td) => ({
      text: td.textContent, value: td.getAttribute('data-value'),
    })));
    return { head, rows };
  }, id);
}

function col(t, title) {
  const i = t.head.indexOf(title);
  assert.ok(i >= 0, `column '${title}' in [${t.head.join(', ')}]`);
  return i;
}

async function checkRunTables(page, r, suffix = '') {
  const v = await tableCells(page, `verdict-table${suffix}`);
  assert.ok(v, 'the verdict table is on the page');
  assert.equal(v.rows.length, r.layers.length, 'one verdict row per layer');
  r.layers.forEach((L, i) => {
    const row = v.rows[i];
    const s = r.summary[L.metric] || {};
    const at = (title) => row[col(v, title)];
    assert.equal(row[0].text, L.layer);
    assertCell(at('start'), s.available ? s.start : null, `${L.layer} start`);
    assertCell(at('end'), s.available ? s.end : null, `${L.layer} end`);
    assertCell(at('growth after warm-up'), s.available ? s.growth_after_warmup : null, `${L.layer} growth`);
    assertCell(at('min growth'), L.min_growth, `${L.layer} min growth`);
    assertCell(at('slope'), s.available ? s.slope_per_mquery : null, `${L.layer} slope`);
    assert.equal(at('verdict').value, L.verdict, `${L.layer} verdict`);
    assert.equal(at('verdict').text, L.verdict + (L.partial ? ' (partial)' : ''));
  });
  if (suffix) return;
  const f = await tableCells(page, 'run-table');
  assert.ok(f, 'the run table is on the page');
  const figure = (name) => {
    const row = f.rows.find((x) => x[0].text === name);
    assert.ok(row, `run table row '${name}'`);
    return row[1];
  };
  const l = r.latency_ns;
  assertCell(figure('queries answered'), r.counts.queries, 'queries');
  assertCell(figure('errors'), r.counts.errors, 'errors');
  assertCell(figure('queries per second'), r.timing.queries_per_second, 'queries per second');
  assertCell(figure('wall time'), r.timing.wall_s, 'wall time');
  const mib = figure('data transferred');
  assert.equal(mib.value, String(r.counts.data_transferred_mib), 'data transferred: data-value');
  assertShown(mib.text, r.counts.data_transferred_mib * 1048576, 'data transferred');
  assertCell(figure('RSS after load'), r.startup.rss_after_load_bytes, 'RSS after load');
  assertCell(figure('time to first query'), r.startup.ns_to_first_query, 'time to first query');
  for (const [k, name] of [['p50', 'latency p50'], ['p97_5', 'latency p97.5'], ['p99', 'latency p99'], ['max', 'latency max']]) {
    assertCell(figure(name), l[k] ?? null, name);
  }
}

async function checkCompareTables(page, c) {
  const t = await tableCells(page, 'path-table');
  assert.ok(t, 'the per-path table is on the page');
  assert.equal(t.rows.length, c.paths.length, 'one row per path');
  c.paths.forEach((p, i) => {
    const row = t.rows[i], s = p.summary;
    const at = (title) => row[col(t, title)];
    assert.equal(row[0].text, p.name);
    const q = s.queries_per_second;
    assert.equal(at('queries per second').value, q && q.mean !== null ? String(q.mean) : 'null', `${p.name} q/s`);
    if (q && q.mean !== null) assertShown(at('queries per second').text.split(' ± ')[0], q.mean, `${p.name} q/s`);
    assertCell(at('p50'), s.latency_ns.p50 ?? null, `${p.name} p50`);
    assertCell(at('p99'), s.latency_ns.p99 ?? null, `${p.name} p99`);
    assertCell(at('peak RSS'), s.rss.peak_bytes ?? null, `${p.name} peak RSS`);
    assertCell(at('RSS over bare runtime'), s.startup.rss_over_bare_bytes ?? null, `${p.name} RSS over bare runtime`);
    assert.equal(at('verdict').value, s.verdict, `${p.name} verdict`);
  });
  const cmp = await tableCells(page, 'comparison-table');
  if (!c.comparisons.length) return;
  assert.ok(cmp, 'the comparison table is on the page');
  assert.equal(cmp.rows.length, c.comparisons.length, 'one row per comparison');
  const keys = [...new Set(c.comparisons.flatMap((x) => Object.keys(x)))];
  assert.equal(cmp.head.length, keys.length, 'one column per comparison key');
  c.comparisons.forEach((x, i) => {
    keys.forEach((k, j) => {
      const shown = cmp.rows[i][j], v = x[k];
      if (k === 'stars') {
        assert.equal(shown.text, v ?? '', `${x.path} stars`);
      } else if (typeof v === 'number') {
        assert.equal(shown.value, String(v), `${x.path} ${k}`);
        if (!/^p(_|$)/.test(k)) assertShown(shown.text, v, `${x.path} ${k}`);
        else assert.ok(Math.abs(Number(shown.text) - v) <= Math.abs(v) * 0.01 + 5e-5, `${x.path} ${k}: '${shown.text}' vs ${v}`);
      } else if (typeof v === 'string') {
        assert.equal(shown.text, v, `${x.path} ${k}`);
      }
    });
  });
}

/**
 * Opens `file` in `browser` (launchChromium()) and checks it against
 * `report`, the object the page embeds.  Returns {charts, requests}.
 */
export async function checkReportPage(browser, file, report) {
  const page = await browser.context.newPage();
  const url = pathToFileURL(file).href;
  const requests = [], problems = [];
  page.on('request', (rq) => requests.push(rq.url()));
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  try {
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForFunction(() => document.body.hasAttribute('data-charts') || document.body.hasAttribute('data-render-error'),
      null, { timeout: 15_000 });
    const renderError = await page.evaluate(() => document.body.getAttribute('data-render-error'));
    assert.equal(renderError, null, 'the page drew the report');
    assert.deepEqual(problems, [], 'no script error');

    // Every chart drawn: a uPlot canvas with pixels of one of its series' colours.
    const charts = await page.evaluate(() => [...document.querySelectorAll('.chart')].map((box) => {
      const canvas = box.querySelector('canvas');
      if (!canvas) return { canvas: false };
      const { width, height } = canvas;
      const px = canvas.getContext('2d').getImageData(0, 0, width, height).data;
      const colors = box.getAttribute('data-colors').split(' ').map((h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)));
      let series = 0;
      for (let i = 0; i < px.length; i += 4) {
        if (px[i + 3] < 200) continue;
        if (colors.some((c) => Math.abs(px[i] - c[0]) + Math.abs(px[i + 1] - c[1]) + Math.abs(px[i + 2] - c[2]) < 60)) series++;
      }
      return { canvas: true, width, height, series, kind: box.getAttribute('data-chart'), metric: box.getAttribute('data-metric') };
    }));
    assert.equal(charts.length, expectedCharts(report), 'one chart per judged layer (and latency)');
    assert.equal(await page.evaluate(() => Number(document.body.getAttribute('data-charts'))), charts.length);
    for (const c of charts) {
      assert.ok(c.canvas && c.width > 100 && c.height > 100, `${c.kind} ${c.metric ?? ''}: a canvas`);
      assert.ok(c.series >= 20, `${c.kind} ${c.metric ?? ''}: ${c.series} pixels of its series drawn`);
    }

    if (report.kind === 'compare') await checkCompareTables(page, report);
    else await checkRunTables(page, report);

    // No network: only the page itself, and data:/blob: URLs.
    const foreign = requests.filter((u) => u !== url && !u.startsWith('data:') && !u.startsWith('blob:'));
    assert.deepEqual(foreign, [], 'the page requested nothing but itself');
    assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], 'nothing was blocked by the page\'s policy');
    return { charts: charts.length, requests };
  } finally {
    await page.close();
  }
}
