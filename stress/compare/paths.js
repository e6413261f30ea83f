// paths.js -- the paths `npm run stress:compare` measures: ONE record per
// path, from which everything else is derived (the table order, --paths and
// its help, each child's command line, which --node/--bun binaries apply, the
// default baseline, the tests in tests/compare/, the Paths table of
// docs/compare.md, which tests/compare/paths.test.js holds to these records).
// Adding a path is adding a record here (docs/extending.md).
//
// Every path runs the same workload through a stress driver that writes the
// monitor's JSON report (docs/report-schema.md) with --json; with --target
// FILE, the same target module on each JS runtime (TARGET_PATHS).  A path becomes
// one or more *variants* when the comparison is between two builds of the DAL
// (--dal, repeatable) or two runtime binaries (--node / --bun): each variant
// is its own column, named "<path>@<label>".
import { existsSync, realpathSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import process from 'node:process';

/**
 * The runtimes a path runs in.  option: the compare flag that gives other
 * binaries of it (each one a variant of every path of this runtime), null
 * when there is none; binary(root): the default binary.  native: the driver
 * is a program of the build (--out), named in the path's argv.
 */
export const RUNTIMES = Object.freeze({
  native: { option: null, binary: null },
  node: { option: '--node', binary: () => process.execPath },
  bun: { option: '--bun', binary: (root) => join(root, 'node_modules', '.bin', 'bun') },
  deno: { option: null, binary: (root) => join(root, 'node_modules', '.bin', 'deno') },
});

// Deno's flag for V8's gc() (stress/js/ffi-binding.js denoGc).
const DENO_GC = '--v8-flags=--expose-gc';

/**
 * The paths, in table order; the first is the default baseline.
 *   name     the column name and --paths value
 *   runtime  a key of RUNTIMES
 *   argv     the child's program and fixed arguments; the driver flags
 *            (--queries, --workload, --json, --progress) are appended.
 *            '{runtime}' is the variant's runtime binary, '{out}/' a file of
 *            the build (--out), '{root}/' a file of the repository.
 *   about    one line, in the JSON report and the help
 *   note     null, or a sentence compare prints whenever the path is run
 */
export const PATHS = Object.freeze([
  {
    name: 'native-direct',
    runtime: 'native',
    argv: ['{out}/dalstress', '--via', 'direct'],
    about: 'dalstress --via direct: a plain C call into libdalshim.so',
    note: null,
  },
  {
    name: 'native-libffi',
    runtime: 'native',
    argv: ['{out}/dalstress', '--via', 'libffi'],
    about: 'dalstress --via libffi: the same call through ffi_call',
    note: null,
  },
  {
    name: 'node-addon',
    runtime: 'node',
    // --expose-gc given here, so main.js does not start itself again (one
    // process to supervise and measure).
    argv: ['{runtime}', '--expose-gc', '{root}/stress/node/main.js'],
    about: 'the N-API addon (npm run stress)',
    note: null,
  },
  {
    name: 'node-koffi',
    runtime: 'node',
    argv: ['{runtime}', '--expose-gc', '{root}/stress/node/main.js', '--via', 'koffi', '--workers', '1'],
    about: 'koffi on Node, called from one worker_thread (--workers 1)',
    // ../shared boundary lesson: on Node's main thread every call into Go
    // refreshes the thread's stack bounds (golang/go#62440), ~18x slower.
    // The comparison measures the way around it and says so in its output.
    note: 'node-koffi runs with --workers 1: koffi on the main thread pays a stack-bounds refresh per call into Go (golang/go#62440), about 18x slower (ffi/README.md)',
  },
  {
    name: 'bun-ffi',
    runtime: 'bun',
    argv: ['{runtime}', '{root}/stress.ts'],
    about: 'bun:ffi over libdalshim.so (bun stress.ts)',
    note: null,
  },
  {
    name: 'deno-ffi',
    runtime: 'deno',
    // --v8-flags=--expose-gc as in `npm run stress:deno`: V8's gc() from the
    // start; the driver's fallback (the flag set at run time) makes each of
    // a sample's two collections cost about twice as much (docs/benchmarks.md).
    argv: ['{runtime}', 'run', DENO_GC, '--allow-ffi', '--allow-read', '--allow-write', '--allow-env', '--allow-sys',
      '{root}/stress.ts'],
    about: 'Deno.dlopen over libdalshim.so (npm run stress:deno)',
    note: null,
  },
].map((p) => Object.freeze({ ...p, argv: Object.freeze(p.argv) })));

/**
 * The paths of `--target FILE` (docs/targets.md): one per JS runtime, the
 * target module being the binding.  The native paths have no place here
 * (dalstress runs the DAL's workloads, not a JS module), nor node-koffi
 * (--via picks the DAL's binding; a target brings its own).  Deno gets
 * --allow-run as `npm run stress:deno` does: a target's driver starts itself
 * again under the allocation tracer (--attribute, on for a target).
 */
export const TARGET_PATHS = Object.freeze([
  {
    name: 'node',
    runtime: 'node',
    argv: ['{runtime}', '--expose-gc', '{root}/stress/node/main.js'],
    about: 'the target on Node (npm run stress -- --target)',
    note: null,
  },
  {
    name: 'bun',
    runtime: 'bun',
    argv: ['{runtime}', '{root}/stress.ts'],
    about: 'the target on Bun (bun stress.ts --target)',
    note: null,
  },
  {
    name: 'deno',
    runtime: 'deno',
    argv: ['{runtime}', 'run', DENO_GC, '--allow-ffi', '--allow-read', '--allow-write', '--allow-env', '--allow-sys', '--allow-run',
      '{root}/stress.ts'],
    about: 'the target on Deno (npm run stress:deno -- --target)',
    note: null,
  },
].map((p) => Object.freeze({ ...p, argv: Object.freeze(p.argv) })));

export const PATH_NAMES = Object.freeze(PATHS.map((p) => p.name));
export const TARGET_PATH_NAMES = Object.freeze(TARGET_PATHS.map((p) => p.name));
export const PATH_BY_NAME = new Map([...PATHS, ...TARGET_PATHS].map((p) => [p.name, p]));
export const DEFAULT_BASELINE = PATHS[0].name;

/** The records a run chooses from: the target paths with --target, else the workload paths. */
export const pathRecords = (o) => (o.target ? TARGET_PATHS : PATHS);

/** The paths of a runtime, in table order. */
export function pathsOf(runtime) {
  return PATHS.filter((p) => p.runtime === runtime).map((p) => p.name);
}

/**
 * A path's command as the docs write it: the program by its short name
 * (node, bun, deno, dalstress) and repository files relative to the root.
 */
export function shownCommand(p) {
  return p.argv.map((a) => a.replace('{runtime}', p.runtime).replace(/^\{(out|root)\}\//, '')).join(' ');
}

/**
 * "LABEL=PATH" or "PATH" (label: the file name without .so).  A relative
 * PATH is taken from cwd; with searchPath, a bare program name ("node") is
 * left for the PATH search.
 */
export function parseLabelled(text, option, cwd, { searchPath = false } = {}) {
  const m = /^([A-Za-z0-9_.+-]+)=(.+)$/.exec(text);
  const path = m ? m[2] : text;
  const label = m ? m[1] : basename(path).replace(/\.so(\.[0-9.]+)?$/, '').replace(/[^A-Za-z0-9_.+-]/g, '_');
  if (!path) throw new Error(`option ${option}: empty path`);
  return { label, path: searchPath && !path.includes('/') ? path : resolve(cwd, path) };
}

/** Labels made unique: a second "libdal" becomes "libdal-2". */
function uniqueLabels(items) {
  const seen = new Map();
  return items.map((it) => {
    const n = (seen.get(it.label) ?? 0) + 1;
    seen.set(it.label, n);
    return n === 1 ? it : { ...it, label: `${it.label}-${n}` };
  });
}

/**
 * The variants to run, in column order: for each selected path, each --dal
 * (or the default DAL) times each binary of its runtime (or the default)
 * times each backend (--backends; named only when given).
 * o: the parsed options (options.js; o.binaries: runtime -> [{label, path}]).
 */
export function variants(o) {
  const dals = o.dals.length ? uniqueLabels(o.dals) : [null];
  const binaries = (runtime) => {
    const list = o.binaries[runtime] ?? [];
    return list.length ? uniqueLabels(list) : [null];
  };
  const list = [];
  for (const p of pathRecords(o).filter((x) => o.paths.includes(x.name))) {
    for (const dal of dals) {
      for (const bin of binaries(p.runtime)) {
        for (const backend of o.target ? [null] : o.backends) {
          const labels = [dal?.label, bin?.label, o.backendLabels ? backend : null].filter(Boolean);
          list.push({
            name: labels.length ? `${p.name}@${labels.join('+')}` : p.name,
            path: p.name,
            runtime: p.runtime,
            about: p.about,
            note: p.note,
            dal,
            binary: bin,
            backend,
          });
        }
      }
    }
  }
  return list;
}

/** A path's argv with its placeholders filled in for variant v (see PATHS). */
export function pathArgv(p, v, o, root) {
  const runtime = () => v.binary?.path ?? RUNTIMES[p.runtime].binary(root);
  return p.argv.map((a) => {
    if (a === '{runtime}') return runtime();
    if (a.startsWith('{out}/')) return join(o.out, a.slice('{out}/'.length));
    if (a.startsWith('{root}/')) return join(root, a.slice('{root}/'.length));
    return a;
  });
}

/** The script a bare runtime runs (bare-runtime.js). */
export const BARE_SCRIPT = '{root}/stress/compare/bare-runtime.js';

/**
 * Variant v's bare runtime (docs/compare.md, "RSS over the bare runtime"):
 * the path's runtime binary and the flags before its script, running
 * bare-runtime.js instead; null for a native path (no runtime under it) or a
 * --path-command stand-in.
 */
export function bareArgv(v, o, root) {
  const p = PATH_BY_NAME.get(v.path);
  if (p.runtime === 'native' || o.pathCommands.has(v.name) || o.pathCommands.has(v.path)) return null;
  const script = p.argv.findIndex((a) => a.startsWith('{root}/'));
  return pathArgv({ ...p, argv: [...p.argv.slice(0, script), BARE_SCRIPT] }, v, o, root);
}

/**
 * The child's command line for one run of variant v:
 * {argv: [program, ...args], env, cwd}.  jsonFile: where the driver writes its
 * report.  o.pathCommands (tests only) replaces a path's program and fixed
 * arguments; the driver arguments are appended all the same.
 */
export function command(v, o, root, jsonFile) {
  const work = o.target
    ? ['--target', o.target, '--iterations', String(o.queries), ...o.targetOptions.flatMap((t) => ['--target-option', t]),
      ...(o.workers !== null ? ['--workers', String(o.workers)] : [])]
    : ['--queries', String(o.queries), '--workload', o.workload, ...(v.backend === 'postgres' ? ['--postgres', o.postgres] : [])];
  const driverArgs = [...work, '--json', jsonFile, '--progress', 'off'];
  const out = o.out;
  const env = { ...process.env, DALKIT_SHIM: join(out, 'libdalshim.so'), DALKIT_ADDON: join(out, 'dalkit.node') };
  if (v.dal) env.DAL_LIBRARY = v.dal.path;
  const override = o.pathCommands.get(v.name) ?? o.pathCommands.get(v.path);
  return { argv: [...(override ?? pathArgv(PATH_BY_NAME.get(v.path), v, o, root)), ...driverArgs], env, cwd: root };
}

/**
 * The DAL library a child of variant v must load: --dal, else $DAL_LIBRARY
 * as this process sees it (the children inherit it), else libdal.so beside
 * libdalshim.so in the build (docs/shim.md, "Which library is loaded").
 * Canonical, so it compares equal to what the dynamic loader reports.
 */
export function expectedDal(v, o) {
  const p = v.dal?.path ?? (process.env.DAL_LIBRARY || join(o.out, 'libdal.so'));
  return existsSync(p) ? realpathSync(p) : p;
}
