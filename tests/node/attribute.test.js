// --attribute (stress/js/attribute.js, docs/attribution.md): the JS drivers
// start themselves again under the allocation tracer, and the DAL's plants
// are named by the shared object that allocated them, never by the other:
// Go's C.malloc (go_cmem) in libdal.so on every path; the shim's malloc
// (shim_malloc) in dalkit.node on the addon path, whose build compiles the
// shim in, and in libdalshim.so through FFI (koffi, Bun, Deno).  Also the
// flags: a missing tracer, the defaults, --no-attribute.
//
// ctest runs each group as its own test (tests/node/CMakeLists.txt).
// 512 B/query over 50,000 queries is 20 MB after warm-up, 5x the native
// layers' 4 MiB bar (docs/leak-verdict.md); 20 samples (16 after warm-up,
// 6 needed), because a sample's forced GCs cost koffi and Deno a quarter of
// a second each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';

import { runDriver, root } from '../targets/run-driver.js';

const PLANT = ['--queries', '50000', '--sample-every', '2500', '--attribute', '--plant-leak'];
const KIT_DSOS = ['native:libdal.so', 'native:libdalshim.so', 'native:dalkit.node'];

/** Exit 1, `dso` leaks and no other library of the kit does. */
function assertNamed(r, dso) {
  assert.equal(r.code, 1, `${r.out}\n${r.err}`);
  const leaking = r.report.verdict.leaking_layers;
  assert.ok(leaking.includes(dso), `${dso} not in ${leaking.join(' ')}\n${r.out}`);
  for (const other of KIT_DSOS.filter((d) => d !== dso)) assert.ok(!leaking.includes(other), `${other} leaks too\n${r.out}`);
  assert.match(r.out, new RegExp(`VERDICT: LEAK in .*${dso.replace(/\./g, '\\.')} \\(\\+[0-9.]+ B/query\\)`));
  assert.equal(r.report.attribution.tracer, true);
}

const runtime = (r) => r.report.layers.find((l) => l.layer === 'native:runtime');

test('addon: shim_malloc is named native:dalkit.node, go_cmem native:libdal.so', async () => {
  const shim = await runDriver('node', [...PLANT, 'shim_malloc:512']);
  assertNamed(shim, 'native:dalkit.node');
  assert.equal(runtime(shim).verdict, 'no leak'); // node's own malloc is seen
  assertNamed(await runDriver('node', [...PLANT, 'go_cmem:512']), 'native:libdal.so');
});

test('ffi: shim_malloc is named native:libdalshim.so through koffi, Bun and Deno', async () => {
  // koffi's synchronous calls are the slowest path (a few thousand a second
  // here): a fifth of the queries, four times the bytes each.
  const koffi = ['--queries', '10000', '--sample-every', '500', '--attribute', '--plant-leak', 'shim_malloc:2048'];
  assertNamed(await runDriver('node', [...koffi, '--via', 'koffi']), 'native:libdalshim.so');
  const bun = await runDriver('bun', [...PLANT, 'shim_malloc:512']);
  assertNamed(bun, 'native:libdalshim.so');
  assert.equal(runtime(bun).verdict, 'n/a'); // Bun's own mimalloc: invisible, never 0
  assert.equal(bun.report.attribution.runtime_heap_visible, false);
  assertNamed(await runDriver('deno', [...PLANT, 'go_cmem:512']), 'native:libdal.so');
});

test('flags: a missing tracer, the defaults and --no-attribute', async () => {
  const missing = { DALKIT_TRACER: join(root, 'build', 'no-such-tracer.so') };
  // Asked for: exit 2, saying how to build it.
  const asked = await runDriver('node', ['--queries', '1000', '--attribute'], { env: missing });
  assert.equal(asked.code, 2, asked.err);
  assert.match(asked.err, /--attribute: .*no-such-tracer\.so is missing: build it with scripts\/setup\.sh/);
  // The default of a --target: a warning, and the run without native layers.
  const target = ['--target', join(root, 'stress', 'targets', 'libc-ffi.mjs'), '--iterations', '2000'];
  const byDefault = await runDriver('node', target, { env: missing });
  assert.equal(byDefault.code, 0, byDefault.err);
  assert.match(byDefault.err, /no native attribution \(native:<dso> layers\): .*no-such-tracer\.so is missing/);
  assert.equal(byDefault.report.attribution.tracer, false);
  // --no-attribute: no tracer, no warning.
  const off = await runDriver('node', [...target, '--no-attribute']);
  assert.equal(off.code, 0, off.err);
  assert.doesNotMatch(off.err, /attribution/);
  assert.ok(!off.report.layers.some((l) => l.layer.startsWith('native:')));
  // A workload runs without it unless asked.
  const workload = await runDriver('node', ['--queries', '1000']);
  assert.equal(workload.report.attribution.tracer, false);
  const both = await runDriver('node', ['--attribute', '--no-attribute']);
  assert.equal(both.code, 2);
  assert.match(both.err, /--attribute and --no-attribute: give one/);
});
