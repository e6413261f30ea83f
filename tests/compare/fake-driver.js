#!/usr/bin/env node
// fake-driver.js -- a stand-in for a stress driver, for compare's supervision
// tests only (stress:compare --path-command NAME='node tests/compare/fake-driver.js BEHAVIOUR [QPS]').
// It takes the driver flags compare appends (--queries N --json FILE ...) and
// behaves as told:
//   ok QPS        writes a valid "no leak" report with queries_per_second QPS, exit 0
//   leak QPS      a valid report whose verdict is "leak in malloc", exit 1
//   wrong         a report counting 3 wrong answers, verdict error, exit 2
//   crash         says something on stderr, then dies of SIGSEGV
//   noreport      says why on stderr and exits 2 without a report
//   garbage       writes a report file that is not JSON, exit 0
//   hang PIDFILE  starts a grandchild (a sleeping node), writes its pid to
//                 PIDFILE, ignores SIGTERM and never ends: compare must kill
//                 the whole process group
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import process from 'node:process';

// BEHAVIOUR [ARG] come first; compare's driver flags (all --name value) follow.
const argv = process.argv.slice(2);
const behaviour = argv[0];
const arg = argv[1] && !argv[1].startsWith('--') ? argv[1] : undefined;
const flags = argv.slice(arg === undefined ? 1 : 2);
const flag = (name) => {
  const i = flags.indexOf(name);
  return i >= 0 ? flags[i + 1] : undefined;
};
const queries = Number(flag('--queries'));
const json = flag('--json');
if (!json || !Number.isSafeInteger(queries)) {
  process.stderr.write('fake_driver: compare did not pass --queries and --json\n');
  process.exit(2);
}

const LAYERS = [
  ['js_heap', 'js_heap_used', 'bytes'], ['js_external', 'js_external', 'bytes'], ['rss', 'rss', 'bytes'],
  ['malloc', 'malloc_in_use', 'bytes'], ['go_heap', 'go_heap_inuse', 'bytes'], ['sqlite', 'sqlite_memory', 'bytes'],
  ['dal_buffers', 'dal_buffers', 'count'], ['shim_buffers', 'shim_buffers', 'count'], ['statements', 'dal_statements', 'count'],
];

/** A schema-2 monitor report (docs/report-schema.md) with the figures given. */
function report({ qps, overall, exitCode, errors = 0, leaking = [] }) {
  const wall = queries / qps;
  const summary = {};
  for (const [, metric] of LAYERS) {
    summary[metric] = {
      available: true, start: 10_000_000, average: 10_500_000, peak: 11_000_000, end: 10_600_000,
      post_warmup_samples: 80, warmup_end_queries: queries * 0.2, warmup_end_value: 10_400_000,
      growth_after_warmup: 200_000, slope_per_mquery: leaking.includes(metric) ? 16e6 : 1000,
    };
  }
  return {
    schema: 'dalkit-stress-report',
    version: 2,
    run: { driver: 'fake', runtime: 'fake', mode: behaviour, queries_planned: queries, sample_every: queries / 100, warmup_share: 0.2,
      warmup_end_queries: queries * 0.2, threads: 1, force_gc: true, min_samples: 6, pid: process.pid, started_unix_ms: Date.now() },
    startup: { rss_after_load_bytes: 8_000_000, ns_to_first_query: 50_000_000 },
    counts: { queries, bytes_in: queries * 87, bytes_out: queries * 34, errors, data_transferred_mib: (queries * 121) / 1048576 },
    timing: { wall_s: wall, cpu_user_s: wall, cpu_sys_s: 0, cpu_percent: 100, queries_per_second: qps },
    latency_ns: { count: queries / 16, min: 4000, p50: 5000, p97_5: 9000, p99: 12000, max: 1_000_000, mean: 5500, stdev: 900 },
    metrics: LAYERS.map(([, name, unit]) => ({ name, unit })),
    samples: [],
    summary,
    layers: LAYERS.map(([layer, metric, unit]) => ({ layer, metric, unit, verdict: leaking.includes(metric) ? 'leak' : 'no leak', partial: false })),
    verdict: {
      overall, exit_code: exitCode, queries_answered: queries, interrupted: false, interrupt_cause: null, partial: false,
      span: { samples: 80, first_queries: queries * 0.2, last_queries: queries },
      leaking_layers: LAYERS.filter(([, m]) => leaking.includes(m)).map(([l]) => l),
      errors: errors ? [`${errors} failed calls or wrong answers`] : [],
    },
  };
}

const write = (r) => writeFileSync(json, JSON.stringify(r));

switch (behaviour) {
  case 'ok':
    write(report({ qps: Number(arg), overall: 'no leak', exitCode: 0 }));
    process.exit(0);
    break;
  case 'leak':
    write(report({ qps: Number(arg), overall: 'leak', exitCode: 1, leaking: ['malloc_in_use'] }));
    process.exit(1);
    break;
  case 'wrong':
    process.stderr.write('fake_driver: answer 17 was 12 bytes, expected 34\n');
    write(report({ qps: 1000, overall: 'error', exitCode: 2, errors: 3 }));
    process.exit(2);
    break;
  case 'crash':
    process.stderr.write('fake_driver: about to crash\n');
    process.kill(process.pid, 'SIGSEGV');
    setInterval(() => {}, 1000); // never reached past the signal
    break;
  case 'noreport':
    process.stderr.write('fake_driver: giving up before the first query\n');
    process.exit(2);
    break;
  case 'garbage':
    writeFileSync(json, '{"schema": "dalkit-stress-report", "version": 2, "counts": ');
    process.exit(0);
    break;
  case 'hang': {
    process.on('SIGTERM', () => process.stderr.write('fake_driver: SIGTERM ignored\n'));
    const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    writeFileSync(arg, String(grandchild.pid));
    process.stderr.write('fake_driver: hanging\n');
    setInterval(() => {}, 1000);
    break;
  }
  default:
    process.stderr.write(`fake_driver: unknown behaviour '${behaviour}'\n`);
    process.exit(2);
}
