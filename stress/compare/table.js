// table.js -- the text output of `npm run stress:compare`: one column per
// path (variant), one row per figure; the comparison against the baseline
// with stars; the multiple-comparisons warning; every failed run with the
// tail of its stderr.  Units follow the monitor's text report (MB = MiB).
/** The words of a unit ('query' for a workload, 'iteration' for a --target), as the monitor's report uses them. */
export const UNIT_WORDS = Object.freeze({
  query: Object.freeze({ one: 'query', many: 'queries', short: 'q', perMillion: 'Mq' }),
  iteration: Object.freeze({ one: 'iteration', many: 'iterations', short: 'it', perMillion: 'Mit' }),
});

const grouped = (v, d = 0) => v.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
const ok = (v) => typeof v === 'number' && Number.isFinite(v);

export function fmtNs(ns) {
  if (!ok(ns)) return '-';
  if (ns >= 1e9) return `${(ns / 1e9).toFixed(2)} s`;
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} us`;
  return `${Math.round(ns)} ns`;
}

export function fmtBytes(b) {
  if (!ok(b)) return '-';
  if (Math.abs(b) >= 1048576) return `${(b / 1048576).toFixed(1)} MB`;
  return `${(b / 1024).toFixed(1)} KB`;
}

function fmtSlope(L, w) {
  if (!ok(L.slope_per_mquery)) return L.verdict === 'n/a' ? 'n/a' : L.verdict;
  // Each layer's unit comes with the monitor's report ("bytes" or "count"),
  // so a new layer of the monitor needs nothing here.
  const s = L.unit === 'bytes' ? `${(L.slope_per_mquery / 1e6).toFixed(2)} B/${w.short}` : `${L.slope_per_mquery.toFixed(2)}/${w.perMillion}`;
  return L.leak_runs ? `${s} LEAK ${L.leak_runs}` : s;
}

const pm = (d, f) => (ok(d.mean) ? (ok(d.sd) ? `${f(d.mean)} ±${f(d.sd)}` : f(d.mean)) : '-');

function grid(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/**
 * The per-path table.  unit: 'query', or 'iteration' for a --target (no
 * data is transferred there).  The slope rows are every layer any path has,
 * in the order they first appear: a target's native:<dso> layers differ by
 * runtime (native:runtime is n/a under Bun).
 */
export function pathTable(paths, unit = 'query') {
  const w = UNIT_WORDS[unit];
  const S = paths.map((p) => p.summary);
  const row = (label, f) => [label, ...S.map((s) => f(s))];
  const layerNames = [...new Set(S.flatMap((s) => s.layers.map((L) => L.layer)))];
  const transfer = unit === 'query' ? [
    row('data transferred', (s) => (ok(s.data_transferred_mib) ? `${grouped(Math.floor(s.data_transferred_mib))} MB` : '-')),
    row('bytes per query', (s) => (ok(s.bytes_per_query) ? grouped(s.bytes_per_query, 1) : '-')),
  ] : [];
  const rows = [
    row('runs measured/planned', (s) => `${s.runs_measured}/${s.runs_planned}`),
    row(`time per ${w.one}`, (s) => pm(s.ns_per_query, fmtNs)),
    row(`${w.many} per second`, (s) => pm(s.queries_per_second, (v) => grouped(v))),
    row('CPU', (s) => (ok(s.cpu_percent) ? `${Math.round(s.cpu_percent)} %` : '-')),
    row('latency p50', (s) => fmtNs(s.latency_ns.p50)),
    row('latency p97.5', (s) => fmtNs(s.latency_ns.p97_5)),
    row('latency p99', (s) => fmtNs(s.latency_ns.p99)),
    row('latency max', (s) => fmtNs(s.latency_ns.max)),
    row(`startup to 1st ${w.one}`, (s) => fmtNs(s.startup.ns_to_first_query)),
    row('RSS after load', (s) => fmtBytes(s.startup.rss_after_load_bytes)),
    row('bare runtime RSS', (s) => fmtBytes(s.startup.bare_runtime_rss_bytes)),
    row('RSS over bare runtime', (s) => fmtBytes(s.startup.rss_over_bare_bytes)),
    row('RSS average', (s) => fmtBytes(s.rss.average_bytes)),
    row('RSS peak', (s) => fmtBytes(s.rss.peak_bytes)),
    ...transfer,
    ...layerNames.map((n) => row(`slope ${n}`, (s) => {
      const L = s.layers.find((x) => x.layer === n);
      return L ? fmtSlope(L, w) : '-';
    })),
    row('verdict', (s) => (s.runs_measured ? s.verdict : 'no run measured')),
  ];
  return grid(['', ...paths.map((p) => p.name)], rows);
}

/** The comparison against the baseline and the multiple-comparisons warning. */
export function comparisonTable(rows, mc, baseline, unit = 'query') {
  if (!rows.length) return '';
  const pct = (v) => (ok(v) ? `${v >= 0 ? '+' : ''}${v.toFixed(2)} %` : '-');
  const fmtP = (p) => (ok(p) ? (p < 0.0001 ? p.toExponential(1) : p.toFixed(4)) : '-');
  const body = rows.map((r) => [
    r.path,
    `${r.runs}/${r.baseline_runs}`,
    pct(r.improvement_pct),
    ok(r.ci95_low_pct) ? `[${pct(r.ci95_low_pct)}, ${pct(r.ci95_high_pct)}]` : '-',
    fmtP(r.p),
    r.stars || (ok(r.p) ? '' : 'n/a'),
    fmtP(r.p_holm),
    r.holm_significant === null ? '-' : r.holm_significant ? 'yes' : 'no',
  ]);
  const lines = [
    `Against ${baseline}: ${UNIT_WORDS[unit].many} per second, mean of the runs; improvement > 0 = faster than ${baseline}.`,
    `Welch's t-test, two-sided: * p < 0.05, ** p < 0.01, *** p < 0.001; 95 % CI of the difference, in % of ${baseline}.`,
    grid(['path', 'runs', 'improvement', '95% CI', 'p', 'stars', 'p (Holm)', 'Holm sig.'], body),
  ];
  if (rows.some((r) => r.p === null)) lines.push('n/a: a t-test needs at least 2 measured runs on each side (--runs 2 or more).');
  if (mc.tests > 1) {
    const fp = mc.expected_false_positives;
    lines.push(
      `Multiple comparisons: ${mc.tests} tests against one baseline. If no path truly differed, about ` +
      `${fp['*'].toFixed(2)} (*), ${fp['**'].toFixed(2)} (**) and ${fp['***'].toFixed(3)} (***) false positives would be expected by chance.`,
      `Bonferroni: significant only if p < ${mc.bonferroni_alpha.toPrecision(2)} (0.05/${mc.tests}): ` +
      `${mc.significant_bonferroni.join(', ') || 'none'}. Holm (step-down, at least as powerful): ${mc.significant_holm.join(', ') || 'none'} ` +
      `of the ${mc.significant_unadjusted.length} with p < 0.05 stay significant.`,
    );
  }
  return lines.join('\n');
}

const indent = (text, prefix) => text.split('\n').map((l) => prefix + l).join('\n');

/** Every failed run: path, round, what happened, the command and its stderr tail. */
export function failureList(failures) {
  if (!failures.length) return '';
  const out = [`FAILED RUNS (${failures.length}):`];
  for (const f of failures) {
    out.push(`  ${f.path} run ${f.round}: ${f.kind}: ${f.message}`);
    out.push(f.stderr_tail ? `    stderr (last lines):\n${indent(f.stderr_tail, '    | ')}` : '    stderr: (empty)');
  }
  return out.join('\n');
}
