// Node under the allocation tracer (ctest tracer_node): a real runtime starts
// with LD_PRELOAD=libdalkit_tracer.so, runs, and exits 0; the tracer's C ABI,
// called from inside that node through koffi, lists the main executable
// ("node") with live memory, and DALKIT_TRACER_REPORT=stderr prints the DSO
// table at exit.  Exact and sampled mode both.
//
// DALKIT_TRACER is the library (set by tests/tracer/CMakeLists.txt).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';

const tracer = process.env.DALKIT_TRACER;

// Runs inside the traced node: allocate native memory (Buffers outside V8's
// pool, a zlib stream) and read the tracer's table through koffi.
const child = `
import koffi from 'koffi';
import zlib from 'node:zlib';
const lib = koffi.load(process.env.DALKIT_TRACER);
const version = lib.func('int32_t dalkit_tracer_version(void)');
const stat = lib.func('int64_t dalkit_tracer_stat(int32_t)');
const count = lib.func('int32_t dalkit_tracer_dso_count(void)');
const name = lib.func('const char *dalkit_tracer_dso_name(int32_t)');
const dsoStat = lib.func('int64_t dalkit_tracer_dso_stat(int32_t, int32_t)');
const kept = [];
for (let i = 0; i < 200; i++) kept.push(Buffer.allocUnsafeSlow(64 * 1024));
const packed = zlib.deflateSync(Buffer.alloc(1 << 20, 7));
const dsos = [];
for (let i = 0; i < count(); i++) {
  dsos.push({ name: name(i), live: Number(dsoStat(i, 0)), allocs: Number(dsoStat(i, 2)), flags: Number(dsoStat(i, 7)) });
}
console.log(JSON.stringify({ version: version(), sampleBytes: Number(stat(0)), active: Number(stat(1)), dsos,
  kept: kept.length, packed: packed.length }));
`;

function runTraced(sampleBytes) {
  return spawnSync(process.execPath, ['--input-type=module', '-e', child], {
    encoding: 'utf8',
    env: {
      ...process.env,
      LD_PRELOAD: tracer,
      DALKIT_TRACER_SAMPLE_BYTES: sampleBytes,
      DALKIT_TRACER_REPORT: 'stderr',
    },
    timeout: 120000,
  });
}

for (const [mode, sampleBytes] of [['exact', '0'], ['sampled', '64k']]) {
  test(`node runs and exits 0 under the tracer (${mode} mode), which names node`, () => {
    assert.ok(tracer && existsSync(tracer), `DALKIT_TRACER must name libdalkit_tracer.so (is: ${tracer})`);
    const r = runTraced(sampleBytes);
    assert.equal(r.status, 0, `node exited with ${r.status} (signal ${r.signal}); stderr:\n${r.stderr}`);
    const out = JSON.parse(r.stdout);
    assert.equal(out.version, 2000000);
    assert.equal(out.active, 1);
    assert.equal(out.sampleBytes, Number.parseInt(sampleBytes, 10) * (sampleBytes.endsWith('k') ? 1024 : 1));
    const node = out.dsos.find((d) => d.flags & 1);
    assert.ok(node, `no DSO flagged as the main executable: ${JSON.stringify(out.dsos)}`);
    assert.equal(node.name, 'node');
    // 200 x 64 KiB Buffers are alive in the child: native memory node allocated.
    assert.ok(node.live >= 200 * 64 * 1024 * 0.7, `node's live bytes ${node.live} < ~12.8 MB`);
    assert.ok(out.dsos.some((d) => d.name === 'koffi.node' && d.allocs > 0) || mode === 'sampled',
      `koffi.node allocated nothing in exact mode: ${JSON.stringify(out.dsos)}`);
    // The exit report: header, then a row for node.
    assert.match(r.stderr, /^dalkit tracer: (exact|sampled) mode/m);
    assert.match(r.stderr, /^ +-?\d+ +-?\d+ +-?\d+ +-?\d+ +-?\d+ {2}node$/m);
  });
}
