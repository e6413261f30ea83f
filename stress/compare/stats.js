// stats.js -- the statistics of `npm run stress:compare`: summaries of a
// sample, Welch's two-sample t-test with its 95 % confidence interval, the
// significance stars, and the multiple-comparison corrections (Bonferroni,
// Holm).
//
// The t distribution (CDF and quantile) comes from jStat (npm `jstat`), a
// dependency-free library in wide use, rather than a hand-written incomplete
// beta function.  tests/compare/stats.test.js checks the whole test against
// published worked examples (R's t.test output, Wikipedia's Welch examples).
import jstatModule from 'jstat';

const { jStat } = jstatModule;

/** {n, mean, sd, min, max, median} of the finite numbers in xs (sd: n-1 denominator; null below 2). */
export function describe(xs) {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x));
  const n = v.length;
  if (n === 0) return { n: 0, mean: null, sd: null, min: null, max: null, median: null };
  const mean = v.reduce((a, b) => a + b, 0) / n;
  const sd = n > 1 ? Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1)) : null;
  const s = [...v].sort((a, b) => a - b);
  const median = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  return { n, mean, sd, min: s[0], max: s[n - 1], median };
}

/** Two-sided p-value of a t statistic with df degrees of freedom. */
export function twoSidedP(t, df) {
  // 2 * CDF(-|t|), not 2 * (1 - CDF(|t|)): the latter rounds small p to 0.
  return Math.min(1, 2 * jStat.studentt.cdf(-Math.abs(t), df));
}

/** The t quantile with df degrees of freedom (e.g. p = 0.975 for a 95 % interval). */
export function tQuantile(p, df) {
  return jStat.studentt.inv(p, df);
}

/**
 * Welch's t-test of mean(a) - mean(b), unequal variances, two-sided:
 * {t, df, p, diff, se, ci95: [lo, hi]} (the interval of the difference of
 * the means).  null when either sample has fewer than two values.  When both
 * variances are 0 the test is undefined: p is 1 for equal means and 0
 * otherwise, and df is null (said in docs/compare.md).
 */
export function welchTTest(a, b) {
  const A = describe(a);
  const B = describe(b);
  if (A.n < 2 || B.n < 2) return null;
  const va = A.sd ** 2 / A.n;
  const vb = B.sd ** 2 / B.n;
  const diff = A.mean - B.mean;
  const se = Math.sqrt(va + vb);
  if (se === 0) {
    return { t: diff === 0 ? 0 : Math.sign(diff) * Infinity, df: null, p: diff === 0 ? 1 : 0, diff, se, ci95: [diff, diff] };
  }
  const t = diff / se;
  // Welch-Satterthwaite degrees of freedom.
  const df = (va + vb) ** 2 / (va ** 2 / (A.n - 1) + vb ** 2 / (B.n - 1));
  const half = tQuantile(0.975, df) * se;
  return { t, df, p: twoSidedP(t, df), diff, se, ci95: [diff - half, diff + half] };
}

/** '***' p < 0.001, '**' p < 0.01, '*' p < 0.05, '' otherwise (and for null). */
export function stars(p) {
  if (typeof p !== 'number' || Number.isNaN(p)) return '';
  if (p < 0.001) return '***';
  if (p < 0.01) return '**';
  if (p < 0.05) return '*';
  return '';
}

/**
 * Holm's step-down adjusted p-values, in the input order (nulls stay null).
 * Adjusted p_(i) = max over j <= i of min(1, (m - j + 1) * p_(j)), sorted
 * ascending; a comparison is significant at level alpha when its adjusted p
 * is below alpha.  Holm controls the family-wise error rate like Bonferroni
 * (p * m) but rejects at least as much.
 */
export function holmAdjust(ps) {
  const idx = ps.map((p, i) => [p, i]).filter(([p]) => typeof p === 'number' && !Number.isNaN(p));
  const m = idx.length;
  idx.sort((x, y) => x[0] - y[0]);
  const out = ps.map(() => null);
  let running = 0;
  idx.forEach(([p, i], rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    out[i] = running;
  });
  return out;
}

/** Bonferroni-adjusted p-values: min(1, p * m), m = the number of tests with a p. */
export function bonferroniAdjust(ps) {
  const m = ps.filter((p) => typeof p === 'number' && !Number.isNaN(p)).length;
  return ps.map((p) => (typeof p === 'number' && !Number.isNaN(p) ? Math.min(1, p * m) : null));
}
