// options.js -- the command line of `npm run stress:compare` (node:util
// parseArgs).  Counts accept the kit's forms (1e6, 1_000_000) through the JS
// drivers' own parser, so --queries means the same here as there.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';

import { parseCount } from '../js/options.js';
import { DEFAULT_WORKLOAD, WORKLOAD_NAMES, workloadNames } from '../js/workload-spec.js';
import { DEFAULT_BASELINE, PATHS, PATH_NAMES, RUNTIMES, parseLabelled, pathsOf } from './paths.js';

export const DEFAULT_QUERIES = 2_000_000;
export const DEFAULT_RUNS = 5;

export class UsageError extends Error {}

/** The runtimes that have a binary option (--node, --bun), from paths.js. */
const BINARY_OPTIONS = Object.entries(RUNTIMES).filter(([, r]) => r.option).map(([runtime, r]) => ({ runtime, option: r.option }));

// Help lines: the flag in a 20-column field, continuation lines indented to it.
const helpLine = (flag, text) => (flag.length < 20 ? `  ${flag.padEnd(20)}${text}` : `  ${flag}\n${' '.repeat(22)}${text}`);

export function usage() {
  const binaryHelp = BINARY_OPTIONS.map(({ runtime, option }) => helpLine(`${option} [LABEL=]PATH`,
    `a ${runtime} binary for ${pathsOf(runtime).join(', ')} (repeatable)`)).join('\n');
  const pathHelp = PATHS.map((p) => helpLine(p.name, p.about)).join('\n');
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
                      group is killed (default 120 + queries x 200 us)
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

Exit codes: 0 every run completed with "no leak"; 1 some run found a leak
(and none failed); 2 bad command line, or an output file could not be
written; 3 at least one run failed (crash, signal, hang, no or bad report,
wrong answers, error verdict, wrong DAL loaded) -- named with its stderr tail;
130 interrupted (Ctrl-C).
`;
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
        dal: { type: 'string', multiple: true },
        ...Object.fromEntries(BINARY_OPTIONS.map(({ option }) => [option.slice(2), { type: 'string', multiple: true }])),
        out: { type: 'string' },
        timeout: { type: 'string' },
        json: { type: 'string' },
        html: { type: 'string' },
        'path-command': { type: 'string', multiple: true },
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
  const o = {
    help: !!v.help,
    paths: PATH_NAMES,
    runs: v.runs !== undefined ? count(v.runs, '--runs', 1, 1000) : DEFAULT_RUNS,
    queries: v.queries !== undefined ? count(v.queries, '--queries', 1, 2 ** 50) : DEFAULT_QUERIES,
    workload: v.workload ?? DEFAULT_WORKLOAD,
    baseline: v.baseline ?? null,
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
      if (!PATH_NAMES.includes(p)) throw new UsageError(`option --paths: unknown path '${p}' (expected ${PATH_NAMES.join(', ')})`);
    }
    o.paths = PATH_NAMES.filter((p) => list.includes(p)); // table order, each once
  }
  // A name, or (as the drivers read it) a path: one with a '/' or ending in
  // .json, made absolute because the drivers run from the repository root.
  if (o.workload.includes('/') || o.workload.endsWith('.json')) {
    o.workload = resolve(cwd, o.workload);
    if (!existsSync(o.workload)) throw new UsageError(`option --workload: no such file ${o.workload}`);
  } else if (!workloadNames().includes(o.workload)) {
    throw new UsageError(`option --workload: '${o.workload}' (expected ${workloadNames().join(', ')}, or a workload file)`);
  }
  if (v.timeout !== undefined) o.timeoutS = count(v.timeout, '--timeout', 1, 7 * 86400);
  else o.timeoutS = Math.ceil(120 + o.queries * 200e-6);
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
