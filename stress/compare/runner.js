// runner.js -- the schedule: R rounds, each running every variant once, in
// its own supervised child.  Interleaving means slow drift of the machine
// (thermal state, other load, page cache) hits every path alike instead of
// whole series; every other round runs in reverse order so no path always
// follows the same neighbour.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { bareArgv, command, expectedDal } from './paths.js';
import { classify, interruptChild, loadedDal, readReport, runChild } from './supervisor.js';

/** The (round, variant) pairs in run order. */
export function schedule(variants, rounds) {
  const order = [];
  for (let r = 1; r <= rounds; r++) {
    const list = r % 2 ? variants : [...variants].reverse();
    for (const v of list) order.push({ round: r, variant: v });
  }
  return order;
}

/**
 * The resident set size of variant v's bare runtime (bare-runtime.js), in
 * bytes, started right after the variant's run so that it sees the same
 * machine; null for a path without one, or when it could not be measured
 * (it is a figure of the table, never a verdict).
 */
export function bareRss(v, o, root, env) {
  const argv = bareArgv(v, o, root);
  if (argv === null) return null;
  const r = spawnSync(argv[0], argv.slice(1), { env, cwd: root, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) return null;
  try {
    const rss = JSON.parse(r.stdout).rss_bytes;
    return typeof rss === 'number' ? rss : null;
  } catch {
    return null;
  }
}

/**
 * Run everything.  Returns Map(variant name -> attempts[]) in round order;
 * each attempt: {round, order, status, kind, message, exit_code, signal,
 * duration_s, dal_loaded, stderr_tail, report, bare_rss_bytes}.  ctl: {interrupted, child}
 * shared with the SIGINT handler; progress(line) gets one line per run.
 */
export async function runAll(variants, o, root, ctl, progress) {
  const attempts = new Map(variants.map((v) => [v.name, []]));
  const plan = schedule(variants, o.runs);
  const scratch = mkdtempSync(join(tmpdir(), 'dalkit-compare-'));
  try {
    for (let i = 0; i < plan.length && !ctl.interrupted; i++) {
      const { round, variant: v } = plan[i];
      const dir = join(scratch, `${i}`);
      const traceDir = join(dir, 'ld');
      mkdirSync(traceDir, { recursive: true });
      const jsonFile = join(dir, 'report.json');
      const spec = command(v, o, root, jsonFile);
      const proc = await runChild({ ...spec, timeoutMs: o.timeoutS * 1000, traceDir }, (child) => {
        ctl.child = child;
        if (ctl.interrupted) interruptChild(child);
      });
      ctl.child = null;
      const read = readReport(jsonFile);
      const loaded = loadedDal(traceDir);
      // A --path-command child is a test stand-in that loads no DAL; a target
      // loads the kit's DAL only if it opens it (stress/targets/dal.mjs).
      const overridden = o.pathCommands.has(v.name) || o.pathCommands.has(v.path);
      let verdict = classify(proc, read, {
        plannedQueries: o.queries,
        unit: o.unit,
        expectedDal: overridden || o.target ? null : expectedDal(v, o),
        loadedDal: loaded,
        timeoutS: o.timeoutS,
      });
      if (ctl.interrupted && verdict.status === 'failed') {
        verdict = { status: 'failed', kind: 'interrupted', message: 'stopped by Ctrl-C (compare was interrupted)' };
      }
      const a = {
        round,
        order: i + 1,
        status: verdict.status,
        kind: verdict.kind,
        message: verdict.message,
        exit_code: proc.exitCode,
        signal: proc.signal,
        duration_s: proc.durationS,
        dal_loaded: loaded,
        command: spec.argv,
        stderr_tail: proc.stderrTail,
        report: read.report,
      };
      // The bare runtime after every measured run: RSS over it is per run.
      a.bare_rss_bytes = a.status === 'failed' || ctl.interrupted ? null : bareRss(v, o, root, spec.env);
      attempts.get(v.name).push(a);
      const qps = read.report?.timing?.queries_per_second;
      const what = a.status === 'failed' ? `FAILED (${a.kind}): ${a.message}`
        : `${Math.round(qps).toLocaleString('en-US')} ${o.unit === 'iteration' ? 'it' : 'q'}/s, ${a.status === 'ok' ? 'no leak' : a.message}`;
      progress(`[${i + 1}/${plan.length}] ${v.name} run ${round}/${o.runs}: ${what} (${proc.durationS.toFixed(1)} s)`);
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return attempts;
}
