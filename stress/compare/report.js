// report.js -- the comparison as one JSON document (docs/compare.md): the
// options, every variant with its summary, every attempt (how it ended, its
// stderr tail) and every run's full monitor report, the comparisons, the
// multiple-comparisons figures and the failures.  The HTML report
// (stress/report/html.js) draws this same object.
import { cpus, loadavg } from 'node:os';
import process from 'node:process';

import { redactedArgs, redactedUrl } from '../js/postgres.js';
import { RUNTIMES } from './paths.js';

export const SCHEMA = 'dalkit-compare-report';
export const VERSION = 1;

/** The compare report.  attempts: Map(name -> attempt[]) from runner.js. */
export function buildReport({ o, argv, variants, attempts, summaries, baseline, comparisons, mc, notes, started, loadStart, interrupted, exitCode }) {
  const paths = variants.map((v) => {
    const list = attempts.get(v.name) ?? [];
    let index = 0;
    return {
      name: v.name,
      path: v.path,
      about: v.about,
      note: v.note,
      dal: v.dal ? { label: v.dal.label, file: v.dal.path } : null,
      binary: v.binary ? { label: v.binary.label, file: v.binary.path } : null,
      backend: v.backend, // sqlite or postgres (null with --target)
      summary: summaries.get(v.name),
      attempts: list.map((a) => ({
        round: a.round,
        order: a.order,
        status: a.status,
        kind: a.kind,
        message: a.message,
        exit_code: a.exit_code,
        signal: a.signal,
        duration_s: a.duration_s,
        dal_loaded: a.dal_loaded,
        bare_rss_bytes: a.bare_rss_bytes ?? null,
        command: a.command && redactedArgs(a.command),
        stderr_tail: a.stderr_tail,
        run_index: a.report ? index++ : null,
      })),
      // The monitor reports of the attempts that wrote one, in round order
      // (attempts[].run_index points here).  Failed runs that still wrote a
      // report (wrong answers, error verdict) are here too; only attempts
      // with status ok or leak enter the statistics.
      runs: list.filter((a) => a.report).map((a) => a.report),
    };
  });
  const failures = [];
  for (const p of paths) {
    for (const a of p.attempts.filter((x) => x.status === 'failed')) {
      failures.push({ path: p.name, round: a.round, kind: a.kind, message: a.message, exit_code: a.exit_code, signal: a.signal, stderr_tail: a.stderr_tail });
    }
  }
  return {
    schema: SCHEMA,
    version: VERSION,
    kind: 'compare',
    started_unix_ms: started,
    finished_unix_ms: Date.now(),
    argv: redactedArgs(argv),
    options: {
      paths: o.paths,
      runs: o.runs,
      queries: o.queries,              // with --target: the iterations
      unit: o.unit,                    // 'query', or 'iteration' with --target
      workload: o.target ? null : o.workload,
      target: o.target,
      target_options: o.targetOptions,
      workers: o.workers,
      baseline,
      timeout_s: o.timeoutS,
      out: o.out,
      dal: o.dals.map((d) => ({ label: d.label, file: d.path })),
      backends: o.target ? null : o.backends,
      postgres: o.postgres === null ? null : redactedUrl(o.postgres), // the password never written
      // "node": the --node binaries, "bun": the --bun ones (paths.js RUNTIMES).
      ...Object.fromEntries(Object.entries(o.binaries).map(([runtime, list]) => [RUNTIMES[runtime].option.slice(2),
        list.map((d) => ({ label: d.label, file: d.path }))])),
    },
    host: { cpus: cpus().length, loadavg_start: loadStart, loadavg_end: loadavg(), node: process.version, platform: `${process.platform} ${process.arch}` },
    baseline,
    metric: 'queries_per_second',
    paths,
    comparisons,
    multiple_comparisons: mc,
    notes,
    failures,
    interrupted,
    exit_code: exitCode,
  };
}
