// paths.js -- the six paths `npm run stress:compare` measures, and how to
// launch each one as its own child process.
//
// Every path runs the same workload through a stress driver that writes the
// monitor's JSON report (docs/report-schema.md) with --json.  A path becomes
// one or more *variants* when the comparison is between two builds of the DAL
// (--dal, repeatable) or two runtime binaries (--node / --bun): each variant
// is its own column, named "<path>@<label>".
import { existsSync, realpathSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import process from 'node:process';

/** The paths, in table order.  runtime: which --node/--bun binary applies. */
export const PATHS = [
  { name: 'native-direct', runtime: 'native', about: 'dalstress --via direct: a plain C call into libdalshim.so' },
  { name: 'native-libffi', runtime: 'native', about: 'dalstress --via libffi: the same call through ffi_call' },
  { name: 'node-addon', runtime: 'node', about: 'the N-API addon (npm run stress)' },
  {
    name: 'node-koffi', runtime: 'node',
    about: 'koffi on Node, called from one worker_thread (--workers 1)',
    // ../shared boundary lesson: on Node's main thread every call into Go
    // refreshes the thread's stack bounds (golang/go#62440), ~18x slower.
    // The comparison measures the way around it and says so in its output.
    note: 'node-koffi runs with --workers 1: koffi on the main thread pays a stack-bounds refresh per call into Go (golang/go#62440), about 18x slower (ffi/README.md)',
  },
  { name: 'bun-ffi', runtime: 'bun', about: 'bun:ffi over libdalshim.so (bun stress.ts)' },
  { name: 'deno-ffi', runtime: 'deno', about: 'Deno.dlopen over libdalshim.so (npm run stress:deno)' },
];

export const PATH_NAMES = PATHS.map((p) => p.name);

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
 * (or the default DAL) times each binary of its runtime (or the default).
 * o: the parsed options (options.js); root: the repository.
 */
export function variants(o, root) {
  const dals = o.dals.length ? uniqueLabels(o.dals) : [null];
  const binaries = {
    native: [null],
    node: o.nodes.length ? uniqueLabels(o.nodes) : [null],
    bun: o.buns.length ? uniqueLabels(o.buns) : [null],
    deno: [null],
  };
  const list = [];
  for (const p of PATHS.filter((x) => o.paths.includes(x.name))) {
    for (const dal of dals) {
      for (const bin of binaries[p.runtime]) {
        const labels = [dal?.label, bin?.label].filter(Boolean);
        list.push({
          name: labels.length ? `${p.name}@${labels.join('+')}` : p.name,
          path: p.name,
          about: p.about,
          note: p.note ?? null,
          dal,
          binary: bin,
        });
      }
    }
  }
  return list;
}

/** The default runtime binaries: this node, and bun/deno from node_modules/.bin. */
function defaultBinary(runtime, root) {
  if (runtime === 'node') return process.execPath;
  return join(root, 'node_modules', '.bin', runtime);
}

/**
 * The child's command line for one run of variant v:
 * {argv: [program, ...args], env, cwd}.  jsonFile: where the driver writes its
 * report.  o.pathCommands (tests only) replaces a path's program and fixed
 * arguments; the driver arguments are appended all the same.
 */
export function command(v, o, root, jsonFile) {
  const driverArgs = ['--queries', String(o.queries), '--workload', o.workload, '--json', jsonFile, '--progress', 'off'];
  const out = o.out;
  const env = { ...process.env, DALKIT_SHIM: join(out, 'libdalshim.so'), DALKIT_ADDON: join(out, 'dalkit.node') };
  if (v.dal) env.DAL_LIBRARY = v.dal.path;
  const node = v.binary?.path ?? defaultBinary('node', root);
  const fixed = {
    'native-direct': [join(out, 'dalstress'), '--via', 'direct'],
    'native-libffi': [join(out, 'dalstress'), '--via', 'libffi'],
    // --expose-gc given here, so main.js does not start itself again (one
    // process to supervise and measure).
    'node-addon': [node, '--expose-gc', join(root, 'stress/node/main.js')],
    'node-koffi': [node, '--expose-gc', join(root, 'stress/node/main.js'), '--via', 'koffi', '--workers', '1'],
    'bun-ffi': [v.binary?.path ?? defaultBinary('bun', root), join(root, 'stress.ts')],
    'deno-ffi': [defaultBinary('deno', root), 'run', '--allow-ffi', '--allow-read', '--allow-write', '--allow-env',
      '--allow-sys', join(root, 'stress.ts')],
  }[v.path];
  const override = o.pathCommands.get(v.name) ?? o.pathCommands.get(v.path);
  return { argv: [...(override ?? fixed), ...driverArgs], env, cwd: root };
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
