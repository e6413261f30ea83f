// stats.test.js -- compare's statistics against published worked examples.
//
// R's t.test (Welch is R's default) on two small samples, as printed in R:
//   ts1 = c(11,9,10,11,10,12,9,11,12,9); ts2 = c(11,13,10,13,12,9,11,12,12,11)
//   t = -1.8325, df = 17.9, p-value = 0.08356
//   95 percent confidence interval: -2.1469104  0.1469104
// Wikipedia, "Welch's t-test", Examples (t, df and p to the digits printed there):
//   1: t = -2.46, df = 25.0, p = 0.021;  2: t = -1.57, df = 9.9, p = 0.149;
//   3: t = -2.22, df = 24.5, p = 0.036.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { bonferroniAdjust, describe, holmAdjust, stars, tQuantile, twoSidedP, welchTTest } from '../../stress/compare/stats.js';

const near = (actual, expected, digits, what) => {
  const tol = 0.5 * 10 ** -digits;
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} is not ${expected} to ${digits} decimals`);
};

test("Welch's t-test matches R's t.test output (t, df, p, 95% CI)", () => {
  const w = welchTTest([11, 9, 10, 11, 10, 12, 9, 11, 12, 9], [11, 13, 10, 13, 12, 9, 11, 12, 12, 11]);
  near(w.t, -1.8325, 4, 't');
  near(w.df, 17.9, 1, 'df');
  near(w.p, 0.08356, 5, 'p');
  near(w.ci95[0], -2.1469104, 7, 'CI low');
  near(w.ci95[1], 0.1469104, 7, 'CI high');
  assert.equal(w.diff, -1);
});

test("Welch's t-test matches Wikipedia's three worked examples", () => {
  const examples = [
    {
      a: [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4],
      b: [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4],
      t: -2.46, df: 25.0, p: 0.021,
    },
    {
      a: [17.2, 20.9, 22.6, 18.1, 21.7, 21.4, 23.5, 24.2, 14.7, 21.8],
      b: [21.5, 22.8, 21.0, 23.0, 21.6, 23.6, 22.5, 20.7, 23.4, 21.8, 20.7, 21.7, 21.5, 22.5, 23.6, 21.5, 22.5, 23.5, 21.5, 21.8],
      t: -1.57, df: 9.9, p: 0.149,
    },
    {
      a: [19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0],
      b: [28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7, 23.2, 17.5, 20.6, 18.0, 23.9, 21.6, 24.3, 20.4, 24.0, 13.2],
      t: -2.22, df: 24.5, p: 0.036,
    },
  ];
  examples.forEach((e, i) => {
    const w = welchTTest(e.a, e.b);
    near(w.t, e.t, 2, `example ${i + 1} t`);
    near(w.df, e.df, 1, `example ${i + 1} df`);
    near(w.p, e.p, 3, `example ${i + 1} p`);
    // The interval excludes 0 exactly when p < 0.05.
    assert.equal(w.ci95[0] > 0 || w.ci95[1] < 0, w.p < 0.05, `example ${i + 1}`);
    // Swapping the samples flips t and the interval, not p or df.
    const s = welchTTest(e.b, e.a);
    near(s.t, -w.t, 12, 'swapped t');
    near(s.p, w.p, 12, 'swapped p');
    near(s.ci95[0], -w.ci95[1], 9, 'swapped CI');
  });
});

test('t distribution: textbook table values', () => {
  // Two-sided 5 % critical values of Student's t (any statistics table).
  near(tQuantile(0.975, 1), 12.706, 3, 'df 1');
  near(tQuantile(0.975, 4), 2.776, 3, 'df 4');
  near(tQuantile(0.975, 10), 2.228, 3, 'df 10');
  near(tQuantile(0.975, 30), 2.042, 3, 'df 30');
  near(twoSidedP(2.228138842, 10), 0.05, 6, 'p at the critical value');
  // Far tails keep their precision (2*CDF(-|t|), not 1 - CDF).
  const tiny = twoSidedP(40, 8);
  assert.ok(tiny > 0 && tiny < 1e-9, String(tiny));
});

test('fewer than two values on a side: no test', () => {
  assert.equal(welchTTest([1], [1, 2, 3]), null);
  assert.equal(welchTTest([1, 2], []), null);
});

test('stars at the thresholds', () => {
  assert.equal(stars(0.0009), '***');
  assert.equal(stars(0.001), '**');
  assert.equal(stars(0.0099), '**');
  assert.equal(stars(0.01), '*');
  assert.equal(stars(0.0499), '*');
  assert.equal(stars(0.05), '');
  assert.equal(stars(null), '');
});

test('Holm and Bonferroni adjustments', () => {
  // Holm: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06,
  // 0.04 -> made monotone: 0.02, 0.03, 0.06, 0.06 (as R's p.adjust "holm").
  const ps = [0.01, 0.04, 0.03, 0.005];
  const h = holmAdjust(ps);
  [0.03, 0.06, 0.06, 0.02].forEach((x, i) => near(h[i], x, 12, `holm ${i}`));
  const b = bonferroniAdjust(ps);
  [0.04, 0.16, 0.12, 0.02].forEach((x, i) => near(b[i], x, 12, `bonferroni ${i}`));
  // Untested comparisons stay null and do not count in m.
  assert.deepEqual(holmAdjust([null, 0.02]), [null, 0.02]);
  assert.deepEqual(bonferroniAdjust([0.6, null, 0.3]), [1, null, 0.6]);
});

test('describe: mean, sample sd, median', () => {
  const d = describe([2, 4, 4, 4, 5, 5, 7, 9]);
  assert.equal(d.mean, 5);
  near(d.sd, Math.sqrt(32 / 7), 12, 'sd');
  assert.equal(d.median, 4.5);
  assert.deepEqual(describe([null, NaN]), { n: 0, mean: null, sd: null, min: null, max: null, median: null });
});
