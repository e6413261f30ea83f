// The HTML report (stress/report/, docs/html-report.md) from real short runs,
// checked in headless Chromium (tests/report/page-check.js):
//   - dalstress --json --html: the page drawn and its tables equal to the
//     JSON; and byte for byte the page the JS renderer makes of that JSON
//     (dalstress has the same page compiled in);
//   - the Node driver (npm run stress) --json --html;
//   - a real stress:compare of two paths (2 runs each), and the same
//     comparison with stars set in its table (two runs rarely reach p < 0.05,
//     so the real one may show none);
//   - a report whose strings hold "</script>" and "<!--": shown as text.
// ctest passes DALSTRESS (the binary), DALKIT_ADDON and DALKIT_OUT_DIR.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';

import { renderHtml } from '../../stress/report/html.js';
import { checkReportPage, launchChromium } from './page-check.js';

const QUERIES = '20000';
const scratch = mkdtempSync(join(tmpdir(), 'dalkit-html-'));
let browser;

function need(name) {
  assert.ok(process.env[name], `${name} is not set (ctest sets it: tests/report/CMakeLists.txt)`);
  return process.env[name];
}

function run(what, cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `${what} exited ${r.status} (signal ${r.signal}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

before(async () => {
  browser = await launchChromium();
});

after(async () => {
  if (browser) await browser.close();
  rmSync(scratch, { recursive: true, force: true });
});

test('dalstress --html: the page draws the run, its tables hold the JSON, no request', async () => {
  const json = join(scratch, 'dalstress.json'), html = join(scratch, 'dalstress.html');
  run('dalstress', need('DALSTRESS'), ['--queries', QUERIES, '--progress', 'off', '--json', json, '--html', html]);
  const text = readFileSync(json, 'utf8');
  // (not assert.equal: a mismatch would print two 150 KB pages)
  assert.ok(readFileSync(html, 'utf8') === renderHtml(text), 'dalstress writes the page the JS renderer writes');
  const report = JSON.parse(text);
  assert.ok(report.latency_histogram.buckets.length > 0, 'the report has the latency histogram');
  const r = await checkReportPage(browser, html, report);
  assert.ok(r.charts >= 8, `${r.charts} charts`);
});

test('npm run stress --html (Node addon): the page draws the run and its tables hold the JSON', async () => {
  need('DALKIT_ADDON');
  const json = join(scratch, 'node.json'), html = join(scratch, 'node.html');
  run('stress/node/main.js', process.execPath,
    ['--expose-gc', 'stress/node/main.js', '--queries', QUERIES, '--progress', 'off', '--json', json, '--html', html]);
  const report = JSON.parse(readFileSync(json, 'utf8'));
  // JS layers are judged here, which dalstress has none of.
  assert.ok(report.layers.some((L) => L.layer === 'js_heap' && L.verdict !== 'n/a'));
  await checkReportPage(browser, html, report);
});

test('stress:compare --html: per-path and comparison tables, stars, charts per path', async () => {
  const json = join(scratch, 'compare.json'), html = join(scratch, 'compare.html');
  run('stress/compare/main.js', process.execPath, ['stress/compare/main.js', '--queries', QUERIES, '--runs', '2',
    '--paths', 'native-direct,node-addon', '--out', need('DALKIT_OUT_DIR'), '--json', json, '--html', html]);
  const report = JSON.parse(readFileSync(json, 'utf8'));
  assert.equal(report.kind, 'compare');
  assert.equal(report.comparisons.length, 1);
  await checkReportPage(browser, html, report);

  // The same comparison with a star for each level: the page shows exactly the stars of the JSON.
  const starred = structuredClone(report);
  const base = starred.comparisons[0];
  starred.comparisons = [['***', 0.0004], ['**', 0.004], ['*', 0.04], ['', 0.4]].map(([stars, p], i) =>
    ({ ...base, path: `${base.path}-${i}`, p, stars }));
  const starredHtml = join(scratch, 'starred.html');
  writeFileSync(starredHtml, renderHtml(starred));
  await checkReportPage(browser, starredHtml, starred);
});

// The data block the page reads, as the browser's parser ends it: at the first "</script".
function embedded(page) {
  const start = page.indexOf('<script type="application/json" id="report-data">');
  const body = page.slice(start).replace(/^[^>]*>/, '');
  return body.slice(0, body.search(/<\/script/i));
}

test('renderHtml: the data block round-trips any string; non-JSON text and non-objects are refused', () => {
  const tricky = { kind: 'x', s: '</script><!-- <script> </SCRIPT >\u2028\u2029 "q" \\ </script>', n: [1, 2.5, null, true] };
  const page = renderHtml(tricky);
  assert.deepEqual(JSON.parse(embedded(page)), tricky);
  assert.equal(embedded(page).includes('<'), false);
  assert.throws(() => renderHtml('{"a": '), SyntaxError);
  assert.throws(() => renderHtml(null), TypeError);
  assert.throws(() => renderHtml(42), TypeError);
});

test('renderHtml writes the same page under Node, Bun and Deno', () => {
  const json = join(scratch, 'dalstress.json');
  const script = `import { renderHtml } from ${JSON.stringify(pathToFileURL(join(process.cwd(), 'stress/report/html.js')).href)};
import { readFileSync, writeFileSync } from 'node:fs';
writeFileSync(process.argv.at(-1), renderHtml(readFileSync(process.argv.at(-2), 'utf8')));`;
  const file = join(scratch, 'render.mjs');
  writeFileSync(file, `import process from 'node:process';\n${script}\n`);
  const want = renderHtml(readFileSync(json, 'utf8'));
  for (const [name, cmd, args] of [
    ['bun', 'node_modules/.bin/bun', [file]],
    ['deno', 'node_modules/.bin/deno', ['run', '--allow-read', '--allow-write', file]],
  ]) {
    const out = join(scratch, `${name}.html`);
    run(name, cmd, [...args, json, out]);
    assert.ok(readFileSync(out, 'utf8') === want, `${name} renders the bytes node renders`);
  }
});

test('strings with </script> and <!-- stay data: shown as text, nothing runs', async () => {
  const report = JSON.parse(readFileSync(join(scratch, 'dalstress.json'), 'utf8'));
  const evil = '</script><script>window.__injected = 1</script><!-- <SCRIPT>';
  report.run.mode = evil;
  report.verdict.errors = [evil];
  const file = join(scratch, 'evil.html');
  writeFileSync(file, renderHtml(report));
  await checkReportPage(browser, file, report);
  const page = await browser.context.newPage();
  try {
    await page.goto(pathToFileURL(file).href);
    await page.waitForFunction(() => document.body.hasAttribute('data-charts'));
    assert.equal(await page.evaluate(() => window.__injected), undefined);
    assert.ok((await page.textContent('.sub')).includes(evil));
    assert.equal(await page.textContent('ul.errors li'), evil);
  } finally {
    await page.close();
  }
});
