// summary.js -- from the runs' monitor reports to the figures compare prints:
// one summary per variant (throughput, latency, startup, memory, per-layer
// slope and verdict, data transferred) and one comparison per variant
// against the baseline (Welch's t-test on queries per second).
import { bonferroniAdjust, describe, holmAdjust, stars, welchTTest } from './stats.js';

export const ALPHA = 0.05;

const num = (x) => (typeof x === 'number' && Number.isFinite(x) ? x : null);
const median = (xs) => describe(xs).median;
const maxOf = (xs) => describe(xs).max;

/** The runs whose measurement counts: complete, with a "no leak" or "leak" verdict. */
export function measured(attempts) {
  return countedAttempts(attempts).map((a) => a.report);
}

const countedAttempts = (attempts) => attempts.filter((a) => a.status === 'ok' || a.status === 'leak');

function layerVerdict(verdicts) {
  const n = verdicts.length;
  if (!n) return 'n/a';
  const leaks = verdicts.filter((v) => v === 'leak').length;
  if (leaks) return `leak (${leaks}/${n} runs)`;
  const kinds = [...new Set(verdicts)];
  return kinds.length === 1 ? kinds[0] : kinds.join(' / ');
}

/** Per-variant figures over its measured runs (docs/compare.md, paths[].summary). */
export function summarize(attempts) {
  const counted = countedAttempts(attempts);
  const reports = measured(attempts);
  const qps = reports.map((r) => num(r.timing.queries_per_second));
  const lat = (k) => reports.map((r) => num(r.latency_ns?.[k]));
  const first = reports[0];
  const layers = (first?.layers ?? []).map((L) => {
    const per = reports.map((r) => r.layers.find((x) => x.layer === L.layer)).filter(Boolean);
    const slopes = reports.map((r) => num(r.summary?.[L.metric]?.slope_per_mquery));
    return {
      layer: L.layer,
      metric: L.metric,
      unit: L.unit,
      slope_per_mquery: describe(slopes).mean,
      slope_per_mquery_max: describe(slopes).max,
      verdict: layerVerdict(per.map((x) => x.verdict)),
      leak_runs: per.filter((x) => x.verdict === 'leak').length,
    };
  });
  const bytes = reports.map((r) => (num(r.counts.bytes_in) ?? 0) + (num(r.counts.bytes_out) ?? 0));
  const queries = reports.map((r) => num(r.counts.queries));
  return {
    runs_planned: attempts.length,
    runs_measured: reports.length,
    runs_failed: attempts.filter((a) => a.status === 'failed').length,
    runs_leak: attempts.filter((a) => a.status === 'leak').length,
    queries_per_second: describe(qps),
    ns_per_query: describe(qps.map((q) => (q ? 1e9 / q : null))),
    // CPU time over wall time: well under 100 % for a one-thread path means
    // the machine took the CPU away (other load), which widens every spread.
    cpu_percent: describe(reports.map((r) => num(r.timing.cpu_percent))).mean,
    latency_ns: { p50: median(lat('p50')), p97_5: median(lat('p97_5')), p99: median(lat('p99')), max: maxOf(lat('max')) },
    startup: {
      rss_after_load_bytes: describe(reports.map((r) => num(r.startup?.rss_after_load_bytes))).mean,
      ns_to_first_query: describe(reports.map((r) => num(r.startup?.ns_to_first_query))).mean,
      // The same runtime with the same flags running an empty loop, measured
      // after each run (runner.js bareRss); over it: what the kit adds, run by run.
      bare_runtime_rss_bytes: describe(counted.map((a) => num(a.bare_rss_bytes))).mean,
      rss_over_bare_bytes: describe(counted.map((a) => {
        const load = num(a.report.startup?.rss_after_load_bytes);
        const bare = num(a.bare_rss_bytes);
        return load === null || bare === null ? null : load - bare;
      })).mean,
    },
    rss: {
      average_bytes: describe(reports.map((r) => num(r.summary?.rss?.average))).mean,
      peak_bytes: maxOf(reports.map((r) => num(r.summary?.rss?.peak))),
    },
    layers,
    data_transferred_mib: describe(reports.map((r) => num(r.counts.data_transferred_mib))).mean,
    bytes_per_query: queries.length && queries.every((q) => q > 0)
      ? describe(bytes.map((b, i) => b / queries[i])).mean : null,
    verdict: layerVerdict(reports.map((r) => r.verdict.overall)),
  };
}

/**
 * Each variant against the baseline, on queries per second.  Flat rows (the
 * HTML report draws one column per key), in variant order, without the
 * baseline itself.  improvement_pct: (mean / baseline mean - 1) x 100, so
 * positive = more queries per second = faster.  The 95 % interval is Welch's
 * interval of the difference of the means, in % of the baseline mean.
 */
export function compareAll(variantNames, qpsByName, baseline) {
  const base = qpsByName.get(baseline) ?? [];
  const B = describe(base);
  const rows = variantNames.filter((n) => n !== baseline).map((name) => {
    const xs = qpsByName.get(name) ?? [];
    const A = describe(xs);
    const w = welchTTest(xs, base);
    const pct = (x) => (B.mean ? (x / B.mean) * 100 : null);
    return {
      path: name,
      baseline,
      runs: A.n,
      baseline_runs: B.n,
      queries_per_second: A.mean,
      baseline_queries_per_second: B.mean,
      improvement_pct: A.n && B.n && B.mean ? (A.mean / B.mean - 1) * 100 : null,
      ci95_low_pct: w ? pct(w.ci95[0]) : null,
      ci95_high_pct: w ? pct(w.ci95[1]) : null,
      t: w && Number.isFinite(w.t) ? w.t : null,
      df: w ? w.df : null,
      p: w ? w.p : null,
      stars: w ? stars(w.p) : '',
      p_holm: null,
      holm_significant: null,
      p_bonferroni: null,
    };
  });
  const holm = holmAdjust(rows.map((r) => r.p));
  const bonf = bonferroniAdjust(rows.map((r) => r.p));
  rows.forEach((r, i) => {
    r.p_holm = holm[i];
    r.p_bonferroni = bonf[i];
    r.holm_significant = holm[i] === null ? null : holm[i] < ALPHA;
  });
  return rows;
}

/** The multiple-comparisons note's figures (docs/compare.md). */
export function multipleComparisons(rows) {
  const tested = rows.filter((r) => r.p !== null);
  const m = tested.length;
  return {
    tests: m,
    alpha: ALPHA,
    bonferroni_alpha: m ? ALPHA / m : null,
    // With m true null hypotheses, m x level false positives are expected by chance.
    expected_false_positives: { '*': m * 0.05, '**': m * 0.01, '***': m * 0.001 },
    significant_unadjusted: tested.filter((r) => r.p < ALPHA).map((r) => r.path),
    significant_holm: tested.filter((r) => r.holm_significant).map((r) => r.path),
    significant_bonferroni: tested.filter((r) => r.p_bonferroni < ALPHA).map((r) => r.path),
  };
}
