// html.js -- the HTML report: one self-contained page (docs/html-report.md)
// that draws a stress report (docs/report-schema.md) or a comparison
// (npm run stress:compare) with uPlot, inlined from the npm package.
//
//   renderHtml(report) -> string     report: an object, or the monitor's JSON text
//   writeHtml(file, report)
//   pageTemplate() -> {head, tail}   the page around the report's JSON
//   embedJson(text) -> string        JSON text made safe inside the page's <script>
//
// Runtime-agnostic ESM: node:fs, node:url and import.meta.url, which Node, Bun
// and Deno all provide; no Node-only API.  The page's files are read when the
// first page is rendered, not at import, so importing this module costs nothing
// for a run without --html.  dalstress embeds the same template at build time
// (stress/report/page-source.js), so there is one page for every driver.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = (name) => fileURLToPath(new URL(name, import.meta.url));
// uPlot is a dependency in the repo root's package.json; read from its dist/.
const UPLOT_DIST = '../../node_modules/uplot/dist/';

// The page's slots, each filled exactly once (one pass, so text inserted into
// one slot is never searched for another).
const SLOT = /\/\*@(UPLOT_CSS|PAGE_CSS|UPLOT_JS|PAGE_JS|REPORT_JSON)@\*\//g;
const JSON_SLOT = '/*@REPORT_JSON@*/';

let template = null;

function read(name, what) {
  try {
    return readFileSync(here(name), 'utf8');
  } catch (e) {
    const hint = name.startsWith(UPLOT_DIST) ? ' (uPlot comes from node_modules: run `npm ci` in the repository)' : '';
    throw new Error(`HTML report: cannot read ${what} ${name}: ${e.message}${hint}`, { cause: e });
  }
}

// Inline <script>/<style> content ends at the first "</script" or "</style"
// (any case); "<!--" inside a script can switch the parser into a mode where
// "</script>" no longer ends it.  The inlined files must contain neither.
function assertInlinable(text, name) {
  const bad = /<\/(script|style)|<!--/i.exec(text);
  if (bad) throw new Error(`HTML report: ${name} contains "${bad[0]}" and cannot be inlined in the page`);
  return text;
}

/** The page with every slot filled except the report's JSON: {head, tail}. */
export function pageTemplate() {
  if (template) return template;
  const parts = {
    UPLOT_CSS: assertInlinable(read(`${UPLOT_DIST}uPlot.min.css`, 'uPlot stylesheet'), 'uPlot.min.css'),
    PAGE_CSS: assertInlinable(read('page.css', 'page stylesheet'), 'page.css'),
    UPLOT_JS: assertInlinable(read(`${UPLOT_DIST}uPlot.iife.min.js`, 'uPlot script'), 'uPlot.iife.min.js'),
    PAGE_JS: assertInlinable(read('page.js', 'page script'), 'page.js'),
    REPORT_JSON: JSON_SLOT,
  };
  const page = read('page.html', 'page template');
  const seen = new Set();
  const filled = page.replace(SLOT, (_, name) => {
    if (seen.has(name)) throw new Error(`HTML report: page.html has the slot ${name} twice`);
    seen.add(name);
    return parts[name];
  });
  if (seen.size !== Object.keys(parts).length) throw new Error('HTML report: page.html lacks a slot');
  const at = filled.indexOf(JSON_SLOT);
  template = { head: filled.slice(0, at), tail: filled.slice(at + JSON_SLOT.length) };
  return template;
}

/**
 * JSON text made safe as the content of <script type="application/json">:
 * every "<" becomes \u003c.  In JSON a "<" can only stand inside a string,
 * where \u003c means the same character, so the data is unchanged, and no
 * "</script>" or "<!--" can appear in the page.  (dalstress applies the same
 * rule in stress/native/html_report.cpp.)
 */
export function embedJson(text) {
  return text.replace(/</g, '\\u003c');
}

/** The whole page for `report` (an object, or JSON text such as the monitor's). */
export function renderHtml(report) {
  let text;
  if (typeof report === 'string') {
    JSON.parse(report); // refuse what the page could not read, here rather than in the browser
    text = report;
  } else {
    if (report === null || typeof report !== 'object') throw new TypeError('renderHtml: report must be an object or JSON text');
    text = JSON.stringify(report);
  }
  const { head, tail } = pageTemplate();
  return head + embedJson(text) + tail;
}

/** Writes the page for `report` to `file` (replacing it). */
export function writeHtml(file, report) {
  writeFileSync(file, renderHtml(report));
}
