// options.js -- the command line of `npm run stress:compare` (node:util
// parseArgs).  Counts accept the kit's forms (1e6, 1_000_000) through the JS
// drivers' own parser, so --queries means the same here as there.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';

import { parseCount } from '../js/options.js';
import { checkPostgresOption } from '../js/postgres.js';
import { BACKENDS, DEFAULT_BACKEND } from '../js/workload-backend.js';
import { DEFAULT_WORKLOAD, WORKLOAD_NAMES, workloadNames } from '../js/workload-spec.js';
import { DEFAULT_BASELINE, PATHS, PATH_NAMES, RUNTIMES, TARGET_PATHS, TARGET_PATH_NAMES, parseLabelled, pathsOf } from './paths.js';

export const DEFAULT_QUERIES = 2_000_000;
export const DEFAULT_RUNS = 5;

export class UsageError extends Error {}

/** Whether path `name` of PATHS runs a native driver (dalstress). */
const isNativePath = (name) => PATHS.find((p) => p.name === name)?.runtime === 'native';

/** The runtimes that have a binary option (--node, --bun), from paths.js. */
const BINARY_OPTIONS = Object.entries(RUNTIMES).filter(([, r]) => r.option).map(([runtime, r]) => ({ runtime, option: r.option }));

// Help lines: the flag in a 20-column field, continuation lines indented to it.
const helpLine = (flag, text) => (flag.length < 20 ? `  ${flag.padEnd(20)}${text}` : `  ${flag}\n${' '.repeat(22)}${text}`);

export function usage() {
  const binaryHelp = BINARY_OPTIONS.map(({ runtime, option }) => helpLine(`${option} [LABEL=]PATH`,
    `a ${runtime} binary for ${pathsOf(runtime).join(', ')} (repeatable)`)).join('\n');
  const pathHelp = PATHS.map((p) => helpLine(p.name, p.about)).join('\n');
  const targetHelp = TARGET_PATHS.map((p) => helpLine(p.name, p.about)).join('\n');
  return `usage: npm run stress:compare -- [options]

Runs the same stress workload through every path, each run in its own
supervised child process, R runs per path interleaved (round 1 of every path,
then round 2, ...; the order is reversed every other round), and compares
throughput against a baseline with Welch's t-test.  docs/compare.md.

  --paths LIST        comma-separated subset of the paths below (default: all)
  --runs R            runs per path (default ${DEFAULT_RUNS}; 30 for publication)
  --queries N         queries per run (default ${DEFAULT_QUERIES}; 1e6 and 1_000_000 work)
  --workload NAME|FILE
                      ${WORKLOAD_NAMES.join(', ')} (default ${DEFAULT_WORKLOAD}), or a
                      workload file (docs/workloads.md); passed to every driver
  --target FILE       instead of a workload, a target module (docs/targets.md)
                      on the JS runtimes: the paths are then ${TARGET_PATH_NAMES.join(', ')}
                      (below); with it --iterations N (default ${DEFAULT_QUERIES}),
                      --target-option K=V (repeatable) and --workers N go to
                      every driver; --queries, --workload and --dal do not apply
  --backends LIST     comma-separated backends to run every path on: ${BACKENDS.join(', ')}
                      (default ${DEFAULT_BACKEND}; with --postgres alone, postgres); each
                      becomes a variant of every path, named <path>@<backend>
  --postgres URL|local
                      the PostgreSQL database of the postgres variants, or
                      local: one throwaway server for the whole comparison
                      (scripts/lib/pg-cluster.sh), stopped on every exit path;
                      each run has a schema of its own (docs/dalstress.md)
  --baseline NAME     the path (or variant) the others are compared with
                      (default ${DEFAULT_BASELINE}, or its first variant)
  --dal [LABEL=]FILE  a libdal.so to load (repeatable: each becomes a variant
                      of every path, named <path>@LABEL; default label: the
                      file name without .so)
${binaryHelp}
  --out DIR           the build output holding dalstress, libdalshim.so,
                      libdal.so and dalkit.node (default build/out, built by
                      scripts/setup.sh when missing)
  --timeout S         seconds before a run counts as hung and its process
                      group is killed (default 120 + queries x 200 us, or
                      x 2 ms when a postgres variant runs)
  --json FILE         write the comparison (docs/compare.md), with every
                      run's full monitor report
  --html FILE         write the self-contained HTML report of the comparison
  --path-command NAME=PROGRAM [ARGS...]
                      FOR TESTS: run PROGRAM ARGS (split on spaces, no shell)
                      instead of path NAME's driver; the driver flags are
                      appended as usual (repeatable)
  --help              this text

Paths, in table order (stress/compare/paths.js):
${pathHelp}

Paths of --target FILE:
${targetHelp}

Exit codes: 0 every run completed with "no leak"; 1 some run found a leak
(and none failed); 2 bad command line, or an output file could not be
written; 3 at least one run failed (crash, signal, hang, no or bad report,
wrong answers, error verdict, wrong DAL loaded) -- named with its stderr tail;
130 interrupted (Ctrl-C).
`;
}

/** --backends (and --postgres): the backends to run, in BACKENDS order, each once. */
function backendsOf(v) {
  if (v.postgres !== undefined) {
    const why = checkPostgresOption(v.postgres);
    if (why !== null) throw new UsageError(why);
  }
  if (v.backends === undefined) return [v.postgres !== undefined ? 'postgres' : DEFAULT_BACKEND];
  const list = v.backends.split(',').map((s) => s.trim()).filter(Boolean);
  if (!list.length) throw new UsageError('option --backends: empty list');
  for (const b of list) {
    if (!BACKENDS.includes(b)) throw new UsageError(`option --backends: unknown backend '${b}' (expected ${BACKENDS.join(', ')})`);
  }
  if (list.includes('postgres') && v.postgres === undefined) {
    throw new UsageError('option --backends: postgres needs --postgres URL|local (the database, or a throwaway local server)');
  }
  if (!list.includes('postgres') && v.postgres !== undefined) {
    throw new UsageError('option --postgres: no postgres in --backends');
  }
  return BACKENDS.filter((b) => list.includes(b));
}

/**
 * Parse argv (flags only).  root: the repository; cwd: where relative paths
 * given by the user start.  Throws UsageError on any problem.
 */
export function parseOptions(argv, root, cwd = root) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: false,
      strict: true,
      options: {
        paths: { type: 'string' },
        runs: { type: 'string' },
        queries: { type: 'string' },
        workload: { type: 'string' },
        baseline: { type: 'string' },
        backends: { type: 'string' },
        postgres: { type: 'string' },
        dal: { type: 'string', multiple: true },
        ...Object.fromEntries(BINARY_OPTIONS.map(({ option }) => [option.slice(2), { type: 'string', multiple: true }])),
        out: { type: 'string' },
        timeout: { type: 'string' },
        json: { type: 'string' },
        html: { type: 'string' },
        'path-command': { type: 'string', multiple: true },
        target: { type: 'string' },
        iterations: { type: 'string' },
        'target-option': { type: 'string', multiple: true },
        workers: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new UsageError(e.message);
  }
  const v = parsed.values;
  const count = (text, name, lo, hi) => {
    try {
      return parseCount(text, name, lo, hi);
    } catch (e) {
      throw new UsageError(e.message);
    }
  };
  const labelled = (list, name, searchPath = false) => (list ?? []).map((t) => {
    try {
      return parseLabelled(t, name, cwd, { searchPath });
    } catch (e) {
      throw new UsageError(e.message);
    }
  });
  // --target FILE: its own count, options and paths; the workload's flags refused.
  const target = v.target;
  if (target === '') throw new UsageError('option --target: empty file name');
  for (const [k, forTarget] of [['queries', false], ['workload', false], ['dal', false], ['backends', false], ['postgres', false],
    ['iterations', true], ['target-option', true], ['workers', true]]) {
    if (v[k] === undefined || forTarget === (target !== undefined)) continue;
    throw new UsageError(forTarget ? `option --${k} needs --target FILE`
      : `option --${k} is for the DAL's workloads, not a --target${k === 'queries' ? ' (count iterations with --iterations)' : ''}`);
  }
  const names = target !== undefined ? TARGET_PATH_NAMES : PATH_NAMES;
  const o = {
    help: !!v.help,
    paths: names,
    target: target !== undefined ? resolve(cwd, target) : null,
    unit: target !== undefined ? 'iteration' : 'query',
    targetOptions: v['target-option'] ?? [],
    workers: v.workers !== undefined ? count(v.workers, '--workers', 1, 1024) : null,
    runs: v.runs !== undefined ? count(v.runs, '--runs', 1, 1000) : DEFAULT_RUNS,
    // With --target, the iterations: one count for the plan, the check and the timeout.
    queries: v.queries !== undefined ? count(v.queries, '--queries', 1, 2 ** 50)
      : v.iterations !== undefined ? count(v.iterations, '--iterations', 1, 2 ** 50) : DEFAULT_QUERIES,
    workload: v.workload ?? DEFAULT_WORKLOAD,
    baseline: v.baseline ?? null,
    backends: backendsOf(v),
    // Whether the variants' names say their backend (--backends or --postgres given).
    backendLabels: v.backends !== undefined || v.postgres !== undefined,
    // 'local', a postgres:// URL (main.js turns 'local' into its server's URL), or null.
    postgres: v.postgres ?? null,
    dals: labelled(v.dal, '--dal'),
    // runtime -> the binaries given with its option (--node, --bun)
    binaries: Object.fromEntries(BINARY_OPTIONS.map(({ runtime, option }) => [runtime, labelled(v[option.slice(2)], option, true)])),
    out: v.out ? resolve(cwd, v.out) : join(root, 'build/out'),
    timeoutS: null,
    json: v.json ? resolve(cwd, v.json) : null,
    html: v.html ? resolve(cwd, v.html) : null,
    pathCommands: new Map(),
  };
  if (v.paths !== undefined) {
    const list = v.paths.split(',').map((s) => s.trim()).filter(Boolean);
    if (!list.length) throw new UsageError('option --paths: empty list');
    for (const p of list) {
      if (names.includes(p)) continue;
      if (o.target && PATH_NAMES.includes(p)) {
        throw new UsageError(`option --paths: '${p}' is a path of the DAL's workloads (${PATHS.find((x) => x.name === p).about}); ` +
          `${isNativePath(p) ? 'a native path runs dalstress, which cannot run a JS target; ' : ''}` +
          `with --target the paths are the runtimes: ${TARGET_PATH_NAMES.join(', ')}`);
      }
      if (!o.target && TARGET_PATH_NAMES.includes(p)) {
        throw new UsageError(`option --paths: '${p}' is a path of --target FILE; the workload paths are ${PATH_NAMES.join(', ')}`);
      }
      throw new UsageError(`option --paths: unknown path '${p}' (expected ${names.join(', ')})`);
    }
    o.paths = names.filter((p) => list.includes(p)); // table order, each once
  }
  if (o.target && !existsSync(o.target)) throw new UsageError(`option --target: no such file ${o.target}`);
  // A name, or (as the drivers read it) a path: one with a '/' or ending in
  // .json, made absolute because the drivers run from the repository root.
  if (o.target) {
    // no workload: the target is the work
  } else if (o.workload.includes('/') || o.workload.endsWith('.json')) {
    o.workload = resolve(cwd, o.workload);
    if (!existsSync(o.workload)) throw new UsageError(`option --workload: no such file ${o.workload}`);
  } else if (!workloadNames().includes(o.workload)) {
    throw new UsageError(`option --workload: '${o.workload}' (expected ${workloadNames().join(', ')}, or a workload file)`);
  }
  if (v.timeout !== undefined) o.timeoutS = count(v.timeout, '--timeout', 1, 7 * 86400);
  else o.timeoutS = Math.ceil(120 + o.queries * (o.backends.includes('postgres') ? 2e-3 : 200e-6));
  for (const [k, f] of [['--json', v.json], ['--html', v.html], ['--out', v.out]]) {
    if (f === '') throw new UsageError(`option ${k}: empty file name`);
  }
  for (const spec of v['path-command'] ?? []) {
    const m = /^([A-Za-z0-9@_.+-]+)=(.+)$/.exec(spec);
    if (!m) throw new UsageError(`option --path-command: '${spec}' (expected NAME=PROGRAM [ARGS...])`);
    o.pathCommands.set(m[1], m[2].split(/\s+/).filter(Boolean));
  }
  return o;
}
