// common.js -- shared by the Node benchmarks: rounds, medians, the build's
// paths.  Benchmarks are reported, never pass/fail (machines are shared).
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** The build directory whose out/ holds dalkit.node, libdal.so and dalstress. */
export const outDir = process.env.DALKIT_OUT ?? join(root, 'build', 'out');
process.env.DALKIT_ADDON ??= join(outDir, 'dalkit.node');

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Queries per second of f() run n times (f may return a promise: awaited). */
export async function rate(n, f) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const r = f(i);
    if (r && typeof r.then === 'function') await r;
  }
  return n / ((performance.now() - t0) / 1000);
}

export const fmt = (x) => Math.round(x).toLocaleString('en-US');

export function argInt(name, dflt) {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
}

/** Run `rounds` rounds of every method, order rotated each round; print medians. */
export async function interleave(methods, rounds) {
  const names = Object.keys(methods);
  const results = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    const order = names.slice(r % names.length).concat(names.slice(0, r % names.length));
    for (const n of order) results[n].push(await methods[n]());
    process.stderr.write(`round ${r + 1}/${rounds}: ${names.map((n) => `${n} ${fmt(results[n][r])}`).join(', ')}\n`);
  }
  return Object.fromEntries(names.map((n) => [n, { median: median(results[n]), all: results[n] }]));
}
