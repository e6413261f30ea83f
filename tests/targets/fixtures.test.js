// The leak fixtures (docs/targets.md "Leak fixtures") under the kit's
// --target verdict, short runs: every leak kind exits 1 naming its layer,
// every clean and step run exits 0 with NO LEAK, on Node, Bun and Deno (the
// N-API addon through each runtime's N-API, the Go library through koffi in
// a worker, bun:ffi and Deno FFI).  The cases and their expected layers are
// in fixture-cases.js; fixtures-confirm.mjs runs the same cases at the
// issue's 16 B x 1,000,000 iterations, several times each.
//
// ctest runs one test per runtime and fixture (tests/targets/CMakeLists.txt,
// --test-name-pattern "^node napi:" ...).  DALKIT_LEAK_FIXTURE and
// DALKIT_GOLEAK name this build's fixtures; bun and deno come from
// node_modules/.bin and DALKIT_SHIM names the monitor for them.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { CASES, RUNTIMES, VIA, caseArgs, caseName, caseProblems } from './fixture-cases.js';
import { runDriver } from './run-driver.js';

// 50 samples (40 after warm-up): the verdict needs 6, the block minima 4 blocks.
const SAMPLES = 50;
const LIBRARY = { napi: process.env.DALKIT_LEAK_FIXTURE ?? null, go: process.env.DALKIT_GOLEAK ?? null };

for (const c of CASES) {
  for (const runtime of c.shortOn ?? RUNTIMES[c.fixture]) {
    test(`${runtime} ${c.fixture}: ${caseName(c)} through ${VIA[c.fixture][runtime]} exits ${c.code}`, async () => {
      const r = await runDriver(runtime, caseArgs(c, runtime, c.short, { library: LIBRARY[c.fixture], samples: SAMPLES }));
      const why = `${r.out}\n${r.err}`;
      assert.deepEqual(caseProblems(c, runtime, r), [], why);
      assert.equal(r.report.run.unit, 'iteration', why);
      // A borderline verdict is confirmed (--confirm, caseArgs) by a run of
      // twice the iterations, whose report is the one written.
      const confirmed = r.report.verdict.confirms !== null;
      if (confirmed) assert.equal(r.report.verdict.confirms.queries_planned, c.short.iterations, why);
      assert.equal(r.report.counts.queries, (confirmed ? 2 : 1) * c.short.iterations, why);
    });
  }
}
