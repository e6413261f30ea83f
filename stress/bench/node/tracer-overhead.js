// tracer-overhead.js -- what the allocation tracer costs the reference
// workload through the Node addon (`npm run stress`'s path): the driver run
// without the tracer, with the sampled tracer (--attribute, default 64 KiB
// interval) and with the exact tracer (--attribute with
// DALKIT_TRACER_SAMPLE_BYTES=0), in one run, interleaved rounds (order
// rotated), the driver's own queries per second from its JSON report,
// medians and ratios, in wall-clock throughput and in CPU time per query.
// Reported, not tested (docs/benchmarks.md).
//
//   node stress/bench/node/tracer-overhead.js [--rounds 3] [--queries 2000000]
//   (DALKIT_OUT=build-x/out to use another build directory)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { argInt, fmt, interleave, median, outDir, root } from './common.js';

const rounds = argInt('--rounds', 3);
const n = argInt('--queries', 2_000_000);
const dir = mkdtempSync(join(tmpdir(), 'dalkit-bench-tracer-'));
const MAIN = join(root, 'stress', 'node', 'main.js');
const TRACER = join(outDir, 'libdalkit_tracer.so');

// CPU seconds per query of each run, beside the wall-clock rates: on a
// shared machine the wall clock moves with the other jobs, CPU time much less.
const cpu = { none: [], sampled: [], exact: [] };

// One driver run; its queries per second (the monitor's: answered queries
// over the run's wall time, sampling included as in every stress run).
function driver(mode, flags, env) {
  const json = join(dir, 'report.json');
  const r = spawnSync(process.execPath, ['--expose-gc', MAIN, '--queries', String(n), '--progress', 'off',
    '--json', json, ...flags], { encoding: 'utf8', env: { ...process.env, DALKIT_TRACER: TRACER, ...env } });
  if (r.status !== 0) throw new Error(`driver ${flags.join(' ')} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  const report = JSON.parse(readFileSync(json, 'utf8'));
  if (flags.includes('--attribute') !== report.attribution.tracer) throw new Error('tracer not as asked');
  cpu[mode].push((report.timing.cpu_user_s + report.timing.cpu_sys_s) / report.counts.queries);
  return report.timing.queries_per_second;
}

try {
  const res = await interleave({
    none: () => driver('none', ['--no-attribute'], {}),
    sampled: () => driver('sampled', ['--attribute'], {}),
    exact: () => driver('exact', ['--attribute'], { DALKIT_TRACER_SAMPLE_BYTES: '0' }),
  }, rounds);
  console.log(`reference workload through the Node addon, ${fmt(n)} queries, ${rounds} rounds (medians, q/s):`);
  const cpuNone = median(cpu.none);
  for (const [name, r] of Object.entries(res)) {
    const ratio = r.median / res.none.median;
    const cpuRatio = cpuNone / median(cpu[name]);
    console.log(`  ${name.padEnd(8)} ${fmt(r.median).padStart(10)} q/s  ratio ${ratio.toFixed(3)}  ` +
      `loss ${((1 - ratio) * 100).toFixed(1)} %;  CPU ${(median(cpu[name]) * 1e6).toFixed(2)} us/query, ` +
      `ratio ${cpuRatio.toFixed(3)}  (rounds: ${r.all.map(fmt).join(', ')})`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
