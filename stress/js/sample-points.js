// sample-points.js -- where a JS stress run samples: at fixed counts of its
// work unit (every sample_every queries or iterations), never by wall time,
// so the number of samples follows from the count and the interval alone
// (docs/leak-verdict.md, section 1).
//
// With --workers N each worker runs its share of every interval between two
// sample points and then pauses; the main thread samples when all of them
// have paused, with nothing in flight, and resumes them (driver.js
// workersLoop, worker.js).  The shares of any count x sum to x, so the run
// is at exactly the sample point when every worker has paused.

/** The first sample point after `done` units: the next multiple of `every`. */
export function nextPoint(done, every) {
  return (Math.floor(done / every) + 1) * every;
}

/**
 * Worker i of n's share of the first x units the workers run: x/n each, the
 * first x % n workers one more.  Monotone in x, and shareOf(i, n, rest) is
 * the worker's whole share of the run.
 */
export function shareOf(i, n, x) {
  return Math.floor(x / n) + (i < x % n ? 1 : 0);
}
