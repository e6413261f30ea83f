// fixture-cases.js -- every leak fixture case (docs/targets.md "Leak
// fixtures") with the verdict it must get, shared by the ctests
// (fixtures.test.js, short runs) and the confirmation script
// (fixtures-confirm.mjs, the 16 B x 1,000,000 iterations).
//
// A case names its target, its --target-option values and what the kit
// must say:
//   code      the exit code (1: leak; 0: no leak)
//   leaks     layers that must be among the leaking ones, per runtime
//   mayLeak   layers that may leak besides (the same memory seen from
//             another layer: a malloc leak also raises rss); any other
//             leaking layer fails the case
//   mustNotLeak  layers that must be in the report and not leak (the
//             buffer leak's addon: its memory is the runtime's)
//   shortOn   the runtimes of the ctest run (default: all of the fixture's).
//             Deno runs N-API calls at about 25,000 per second, slower under
//             load: its short runs leave out two clean twins (the same addon
//             code as malloc clean, run on Node and Bun and by the
//             confirmation script)
//   short     {bytes, iterations} of the ctest run: the fewest iterations
//             whose planted growth after warm-up is about 5x the layer's
//             min_growth (2 MiB, native:<dso> 4 MiB: docs/leak-verdict.md), with bytes raised
//             from 16 where 16 B would need several 100,000 iterations (Deno
//             runs N-API and FFI calls at 10,000-25,000 per second)
import { join } from 'node:path';

import { root } from './run-driver.js';

const HERE = join(root, 'tests', 'targets');
export const TARGETS = { napi: join(HERE, 'napi-leak.mjs'), go: join(HERE, 'goleak.mjs') };
export const RUNTIMES = { napi: ['node', 'bun', 'deno'], go: ['node', 'bun', 'deno'] };

/** Driver flags a fixture needs on a runtime: koffi calls into Go from a worker (golang/go#62440). */
export const runtimeArgs = (fixture, runtime) => (fixture === 'go' && runtime === 'node' ? ['--workers', '1'] : []);

/** How each runtime reaches the fixture, for names and tables. */
export const VIA = { napi: { node: 'N-API', bun: 'N-API', deno: 'N-API' }, go: { node: 'koffi (worker)', bun: 'bun:ffi', deno: 'Deno FFI' } };

const everywhere = (layers) => ({ node: layers, bun: layers, deno: layers });

// The allocation tracer's layers (docs/attribution.md; on by default for a
// --target) name the shared object: the fixture's own file, and the
// runtime's executable as native:runtime.
const ADDON = 'native:leak_fixture.node';
const GO = 'native:libgoleak.so';
const RUNTIME = 'native:runtime';

export const CASES = [
  // malloc without free, 496 B -> a 512 B chunk: 20 MB after warm-up at
  // 50,000 (native:<dso> layers: min_growth 4 MiB).
  { fixture: 'napi', kind: 'malloc', mode: 'leak', code: 1, leaks: everywhere(['malloc', ADDON]), mayLeak: ['rss'],
    short: { bytes: 496, iterations: 50000 } },
  { fixture: 'napi', kind: 'malloc', mode: 'clean', code: 0, short: { bytes: 496, iterations: 50000 } },
  // The wrapped object stays: its payload in malloc and the addon
  // everywhere, and the JS object in js_heap (V8: about 96 B per Handle,
  // 7.7 MB at 100,000; JSC takes 32 B, too little for a short run, so Bun's
  // js_heap only may leak); the runtime allocates the napi_ref.
  { fixture: 'napi', kind: 'napi_ref', mode: 'leak', code: 1,
    leaks: { node: ['js_heap', 'malloc', ADDON], bun: ['malloc', ADDON], deno: ['js_heap', 'malloc', ADDON] },
    mayLeak: ['js_heap', 'rss', RUNTIME], short: { bytes: 240, iterations: 100000 } },
  { fixture: 'napi', kind: 'napi_ref', mode: 'clean', code: 0, short: { bytes: 240, iterations: 100000 }, shortOn: ['node', 'bun'] },
  // The Buffers stay: js_external grows by their bytes (and js_heap by their
  // objects).  Their backing stores and references are the runtime's (calloc
  // in Node and Deno, so malloc and native:runtime may grow; mimalloc in
  // Bun), never the addon's: native:leak_fixture.node must not leak.
  { fixture: 'napi', kind: 'buffer', mode: 'leak', code: 1, leaks: everywhere(['js_external']),
    mayLeak: ['js_heap', 'malloc', 'rss', RUNTIME], mustNotLeak: [ADDON], short: { bytes: 256, iterations: 50000 } },
  { fixture: 'napi', kind: 'buffer', mode: 'clean', code: 0, short: { bytes: 256, iterations: 50000 }, shortOn: ['node', 'bun'] },
  // 100 MiB once at 30 % of the run (past the warm-up), then flat.
  { fixture: 'napi', kind: 'malloc', mode: 'step', code: 0, short: { bytes: 16, iterations: 50000 } },
  // The caller never frees the C.CString: 496 B -> 512 B chunks, in malloc
  // and charged to the Go library.
  { fixture: 'go', mode: 'leak', code: 1, leaks: everywhere(['malloc', GO]), mayLeak: ['rss'],
    short: { bytes: 496, iterations: 50000 } },
  { fixture: 'go', mode: 'clean', code: 0, short: { bytes: 496, iterations: 50000 } },
  { fixture: 'go', mode: 'step', code: 0, short: { bytes: 16, iterations: 50000 } },
];

/** "malloc leak", "step" (the fixture says which library). */
export const caseName = (c) => [c.kind, c.mode].filter(Boolean).join(' ');

/**
 * The driver's arguments for case c on runtime at {bytes, iterations},
 * with `samples` samples (the driver's default: 100).
 */
export function caseArgs(c, runtime, { bytes, iterations }, { library = null, samples = 100 } = {}) {
  const opts = [`mode=${c.mode}`, `bytes=${bytes}`, ...(c.kind ? [`kind=${c.kind}`] : []), ...(library ? [`library=${library}`] : [])];
  // --confirm, as a user's CI would run it: a borderline verdict is run
  // again at twice the iterations (docs/leak-verdict.md).  A step case is
  // the one that needs it: after the 100 MiB step, the RSS outside the JS
  // heap can rise by a few 100 KB into the next block (seen on Deno and on
  // koffi under load: 0.73 MB against the 0.52 MB a block may rise), which
  // the verdict marks borderline.
  return ['--target', TARGETS[c.fixture], '--iterations', String(iterations), '--sample-every', String(Math.floor(iterations / samples)),
    '--confirm', ...runtimeArgs(c.fixture, runtime),
    ...opts.flatMap((o) => ['--target-option', o])];
}

/**
 * What is wrong with run r of case c on runtime (an empty list: nothing).
 * Checks the exit code, the verdict line and the leaking layers.
 */
export function caseProblems(c, runtime, r) {
  const problems = [];
  if (r.code !== c.code) problems.push(`exit code ${r.code}, not ${c.code}`);
  if (r.report === null) return [...problems, 'no JSON report'];
  if (r.report.counts.queries !== r.report.run.queries_planned) {
    problems.push(`ran ${r.report.counts.queries} of ${r.report.run.queries_planned} iterations`);
  }
  const leaking = r.report.verdict.leaking_layers ?? [];
  if (c.code === 0) {
    if (!/VERDICT: NO LEAK \(exit code 0\)/.test(r.out)) problems.push('no "VERDICT: NO LEAK" line');
    if (leaking.length > 0) problems.push(`leaking: ${leaking.join(' ')}`);
    return problems;
  }
  for (const l of c.leaks[runtime]) {
    if (!leaking.includes(l)) problems.push(`${l} not named as leaking (leaking: ${leaking.join(' ') || 'none'})`);
    if (!new RegExp(`VERDICT: LEAK in .*\\b${l}\\b`).test(r.out)) problems.push(`the VERDICT line does not name ${l}`);
  }
  for (const l of c.mustNotLeak ?? []) {
    const layer = r.report.layers.find((x) => x.layer === l);
    if (layer === undefined) problems.push(`no ${l} layer in the report`);
  }
  const allowed = [...c.leaks[runtime], ...c.mayLeak];
  const wrong = leaking.filter((l) => !allowed.includes(l));
  if (wrong.length > 0) problems.push(`${wrong.join(' ')} named as leaking too`);
  return problems;
}
