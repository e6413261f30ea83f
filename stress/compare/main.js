#!/usr/bin/env node
// main.js -- `npm run stress:compare` (stress/compare/compare.sh builds what
// is missing first): every path side by side, R interleaved runs each, with
// statistics against a baseline, supervision of every child, a text table on
// stdout, --json and --html.  docs/compare.md.
import { accessSync, constants, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

import { localPostgresOrRelaunch, redactedUrl } from '../js/postgres.js';
import { parseOptions, usage, UsageError } from './options.js';
import { DEFAULT_BASELINE, RUNTIMES, variants as makeVariants } from './paths.js';
import { buildReport } from './report.js';
import { runAll } from './runner.js';
import { interruptChild } from './supervisor.js';
import { compareAll, measured, multipleComparisons, summarize } from './summary.js';
import { UNIT_WORDS, comparisonTable, failureList, pathTable } from './table.js';

export const EXIT = { OK: 0, LEAK: 1, USAGE: 2, FAILED: 3, INTERRUPTED: 130 };

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const say = (s) => process.stderr.write(`compare: ${s}\n`);

/**
 * Where the user's relative paths start: npm runs scripts from the package
 * root, and says where it was invoked in INIT_CWD.
 */
function userCwd() {
  return process.env.npm_lifecycle_event === 'stress:compare' && process.env.INIT_CWD ? process.env.INIT_CWD : process.cwd();
}

/** An output file must be creatable before hours of runs are spent. */
function checkWritable(file, option) {
  const dir = dirname(resolve(file));
  try {
    if (statSync(resolve(file), { throwIfNoEntry: false })?.isDirectory()) throw new Error('is a directory');
    accessSync(dir, constants.W_OK);
  } catch (e) {
    throw new UsageError(`option ${option}: cannot write '${file}': ${e.code === 'ENOENT' ? `no directory ${dir}` : e.message}`);
  }
}

function resolveBaseline(o, variants) {
  const name = o.baseline ?? DEFAULT_BASELINE;
  const v = variants.find((x) => x.name === name) ?? variants.find((x) => x.path === name);
  if (!v) {
    if (o.baseline === null) return variants[0].name; // the default baseline not selected: the first path
    throw new UsageError(`option --baseline: '${name}' is not among the paths run (${variants.map((x) => x.name).join(', ')})`);
  }
  return v.name;
}

export async function main(argv) {
  let o;
  let variants;
  let baseline;
  try {
    o = parseOptions(argv, root, userCwd());
    if (o.help) {
      process.stdout.write(usage());
      return EXIT.OK;
    }
    variants = makeVariants(o, root);
    baseline = resolveBaseline(o, variants);
    // A runtime binary for a path that is not run would be silently ignored.
    for (const [runtime, list] of Object.entries(o.binaries)) {
      if (list.length && !variants.some((v) => v.runtime === runtime)) {
        throw new UsageError(`option ${RUNTIMES[runtime].option}: no path that uses it is run (--paths ${o.paths.join(',')})`);
      }
    }
    for (const name of o.pathCommands.keys()) {
      if (!variants.some((v) => v.name === name || v.path === name)) {
        throw new UsageError(`option --path-command: '${name}' is not among the paths run`);
      }
    }
    if (o.json) checkWritable(o.json, '--json');
    if (o.html) checkWritable(o.html, '--html');
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`stress:compare: ${e.message}\n\n${usage()}`);
    return EXIT.USAGE;
  }
  // --postgres local: the comparison runs again beside one throwaway server
  // for all its runs (each run has a schema of its own).
  const underCluster = localPostgresOrRelaunch(o, { program: 'stress:compare', err: (s) => process.stderr.write(s) });
  if (underCluster !== null) return await underCluster;

  const started = Date.now();
  const loadStart = loadavg();
  const notes = [...new Set(variants.map((v) => v.note).filter(Boolean))];
  const w = UNIT_WORDS[o.unit];
  const work = o.target ? `target ${o.target}`
    : `workload ${o.workload} on ${o.backends.join(' and ')}${o.postgres !== null ? ` (${redactedUrl(o.postgres)})` : ''}`;
  say(`${variants.length} paths x ${o.runs} runs of ${o.queries.toLocaleString('en-US')} ${w.many} (${work}), ` +
    `interleaved; baseline ${baseline}; timeout ${o.timeoutS} s per run; build ${o.out}`);
  for (const n of notes) say(n);

  const ctl = { interrupted: false, child: null };
  const onSigint = () => {
    if (ctl.interrupted) { // a second Ctrl-C: leave now, leaving nothing behind
      interruptChild(ctl.child, 'SIGKILL');
      process.exit(EXIT.INTERRUPTED);
    }
    ctl.interrupted = true;
    say('interrupted: stopping the current run; the table covers what finished');
    interruptChild(ctl.child);
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  let attempts;
  try {
    attempts = await runAll(variants, o, root, ctl, say);
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
  }

  const summaries = new Map(variants.map((v) => [v.name, summarize(attempts.get(v.name))]));
  const qps = new Map(variants.map((v) => [v.name, measured(attempts.get(v.name)).map((r) => r.timing.queries_per_second)]));
  const comparisons = compareAll(variants.map((v) => v.name), qps, baseline);
  const mc = multipleComparisons(comparisons);
  const all = [...attempts.values()].flat();
  const exitCode = ctl.interrupted ? EXIT.INTERRUPTED
    : all.some((a) => a.status === 'failed') ? EXIT.FAILED
      : all.some((a) => a.status === 'leak') ? EXIT.LEAK : EXIT.OK;
  const report = buildReport({
    o, argv, variants, attempts, summaries, baseline, comparisons, mc, notes, started, loadStart,
    interrupted: ctl.interrupted, exitCode,
  });

  const paths = report.paths;
  const text = [
    `dalkit stress comparison: ${variants.length} paths, ${o.runs} runs x ${o.queries.toLocaleString('en-US')} ${w.many} each, ${work}`,
    // Other load on the machine is the first thing to know when reading spreads.
    `machine: ${report.host.cpus} CPUs, load average ${loadStart[0].toFixed(2)} at start, ${report.host.loadavg_end[0].toFixed(2)} at end`,
    '',
    pathTable(paths, o.unit),
    `(±: standard deviation over the runs; latency: median of the runs' percentiles, max: the largest; slope: mean over the runs, ` +
      `B/${w.short} = bytes per ${w.one}, /${w.perMillion} = objects per million ${w.many})`,
    '',
    comparisonTable(comparisons, mc, baseline, o.unit),
    ...notes.map((n) => `Note: ${n}`),
    failureList(report.failures),
  ].filter((s, i, a) => s !== '' || a[i - 1] !== '').join('\n');
  process.stdout.write(`${text}\n`);

  let code = exitCode;
  const write = (what, file, f) => {
    try {
      f();
      say(`${what} written to ${file}`);
    } catch (e) {
      say(`cannot write ${what} ${file}: ${e.message}`);
      if (code === EXIT.OK || code === EXIT.LEAK) code = EXIT.USAGE;
    }
  };
  if (o.json) write('JSON report', o.json, () => writeFileSync(o.json, `${JSON.stringify(report, null, 1)}\n`));
  if (o.html) {
    const { writeHtml } = await import('../report/html.js');
    write('HTML report', o.html, () => writeHtml(o.html, report));
  }
  const why = {
    [EXIT.OK]: 'every run completed with no leak',
    [EXIT.LEAK]: 'a leak was found (see the slope rows)',
    [EXIT.FAILED]: `${report.failures.length} run(s) failed (listed above)`,
    [EXIT.INTERRUPTED]: 'interrupted',
    [EXIT.USAGE]: 'an output file could not be written',
  }[code];
  process.stdout.write(`COMPARE: ${why} (exit code ${code})\n`);
  return code;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
