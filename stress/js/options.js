// options.js -- the command line of the JS stress drivers (Node addon,
// koffi, Bun, Deno): one spec, the same option names and meanings as
// dalstress (docs/dalstress.md) wherever the two overlap.
//
// Uses node:util parseArgs, which Node, Bun and Deno all provide.
import process from 'node:process';
import { parseArgs } from 'node:util';

import { checkPostgresOption } from './postgres.js';
import { DEFAULT_WORKLOAD, WORKLOAD_NAMES } from './workload-spec.js';

export const DEFAULT_QUERIES = 100_000_000;
export const APIS = ['into', 'raw', 'builder'];
export const JS_PLANTS = ['js_heap', 'js_external'];
// Native plants, passed to open() as options (the DAL's, the shim's one).
export const NATIVE_PLANTS = ['go_cmem', 'go_heap', 'sqlite_stmt', 'shim_malloc', 'goroutine', 'connection'];
// Of those, the ones that leak an object every B queries (plant_leak_every), not B bytes per query.
const COUNTED_PLANTS = ['goroutine', 'connection'];
export const MAX_PLANT_BYTES = 1_048_576;
// --target: an iteration's (and setup's, teardown's) time limit.
export const DEFAULT_ITERATION_TIMEOUT_MS = 30_000;
// Flags of the DAL's workloads, which a target does not have (docs/targets.md).
const WORKLOAD_ONLY = ['workload', 'queries', 'api', 'async', 'max-errors', 'via', 'postgres'];
const TARGET_ONLY = ['iterations', 'concurrency', 'iteration-timeout', 'target-option'];

export function usage(program, vias) {
  return `usage: ${program} [options]

Runs a workload (stress/workloads/*.json, docs/workloads.md; default the
reference query: 87-byte request, 34-byte answer "no such table: data") N
times through ${vias.length > 1 ? `one of: ${vias.join(', ')}` : vias[0]}, checks every answer,
samples memory through the kit's monitor (dalmon_*) and prints its leak
verdict.  Options shared with dalstress mean the same there.

  --workload NAME|FILE
                      ${WORKLOAD_NAMES.join(', ')} (default ${DEFAULT_WORKLOAD}),
                      or the path of a workload file
  --target FILE       instead of a workload, stress your own code: a module
                      whose default export has setup(ctx), iteration(state, i)
                      and teardown(state) (docs/targets.md); the DAL is not
                      loaded.  A relative FILE starts where npm was run.
                      With it: --iterations N (default ${DEFAULT_QUERIES}),
                      --concurrency K  async iterations in flight (default 1),
                      --iteration-timeout MS  limit of one iteration, setup or
                        teardown (default ${DEFAULT_ITERATION_TIMEOUT_MS}; a failure or timeout exits 2),
                      --target-option K=V  ctx.options.K (repeatable);
                      not --workload, --queries, --api, --async, --max-errors,
                      --via or a native --plant-leak
  --queries N         queries in total (default ${DEFAULT_QUERIES}; 1e6 and 1_000_000 work)
  --api into|raw|builder
                      into: queryInto(request, reused buffer) (default)
                      raw: queryRaw(request) -> a new Uint8Array per query
                      builder: the step's commands as lib/builder.js calls,
                      e.g. db.In('data').Find({a: 1, b: {$gt: 2}}).all()
  --async             use the async form (a Promise per query, libuv thread pool)
  --workers N         run the queries in N worker_threads, each with its own
                      handle on the same data directory (default 0: main thread);
                      worker i is the workload's thread t = i
  --sample-every N    queries between monitor samples (default queries/100,
                      clamped to 1..1000000)
  --warmup-share F    share of queries treated as warm-up, 0..0.9 (default 0.2)
  --db-dir DIR        data directory (created if missing, kept); default: a fresh
                      temporary directory removed at the end
  --postgres URL|local
                      run on PostgreSQL instead of SQLite: the database at URL
                      (postgres://USER[:PASSWORD]@HOST:PORT/DB?...), or local:
                      a throwaway server started for the run
                      (scripts/lib/pg-cluster.sh; Debian's postgresql, see
                      scripts/deps.sh) and stopped on every exit path.  The
                      requests' db is a schema of this run's own, dropped at
                      its end; the workload's PostgreSQL answers are checked
  --confirm           when the verdict is borderline (close to a threshold,
                      docs/leak-verdict.md), run again with twice the queries;
                      the second run's verdict and exit code stand, and its
                      reports name the first.  Its data directory is DIR/confirm
  --json FILE         write the JSON report (docs/report-schema.md) to FILE
  --html FILE         write the HTML report (docs/html-report.md) to FILE: one
                      self-contained page with charts, opens with no network
  --plant-leak L:B    plant a leak of B bytes per query (1..${MAX_PLANT_BYTES}) in layer L:
                      js_heap (retained strings), js_external (retained Uint8Arrays),
                      or go_cmem, go_heap, sqlite_stmt, shim_malloc (native, as in dalstress);
                      goroutine and connection (PostgreSQL) leak one object every B queries
  --latency-every K   time one query in K on average, individually (default 16;
                      1 = every query)
  --max-errors N      stop after N errors (default 1000); the run then fails
  --monitor-param K=V extra dalmon_start parameter, e.g. slope.rss=4 (repeatable)
  --lite              Node: run V8 in lite mode (interpreter and baseline code,
                      no optimizing compiler).  Default: Node as users run it.
                      Lite mode keeps ~4-6 MB of compiler code pages out of the
                      measured RSS but slows JS-heavy paths (--api builder);
                      see docs/api.md
  --attribute, --no-attribute
                      name the shared object that holds native memory: the
                      driver starts itself again with the allocation tracer
                      (build/out/libdalkit_tracer.so, or $DALKIT_TRACER) in
                      LD_PRELOAD, and the monitor adds native:<dso> layers
                      (docs/attribution.md).  Default: on with --target, off
                      with a workload
  --progress auto|line|plain|off
                      progress on stderr: auto = one updating line on a TTY,
                      plain periodic lines otherwise (default auto)
${vias.length > 1 ? `  --via ${vias.join('|')}\n                      binding to stress (default ${vias[0]})\n` : ''}  --help              this text

Exit codes: 0 no leak, 1 leak, 2 error (bad flag, failed or wrong answer,
too few samples, interrupted).
`;
}

export class UsageError extends Error {}

// Counts typed by people, in the kit's one grammar of integers: the same as
// dalkit::parse_int (dal-shim/common/numbers.hpp), which dalstress and
// dalmon_start use, so --queries means the same in every driver.  One table
// of cases, tests/common/number-cases.json, is run against both parsers.
//
//   [+|-] mantissa [ ('e'|'E') [+|-] digits ]
//   mantissa:  int [ '.' [digits] ]  |  '.' digits
//   int:       digits, grouped with '_' or ',' between two digits
//              ("100_000_000", "1,000,000"; not "_1", "1_", "1__0")
//
// The value must be a whole number ("1e8", "2.5e6", "150e-1" = 15, "5." = 5;
// not "1.5" or "1e-1"), is computed exactly (BigInt, no double rounding) and
// must lie in lo..hi (safe integers).  No whitespace, hex, "inf" or "nan".
const COUNT = /^([+-]?)((?:[0-9]+(?:[_,][0-9]+)*)?)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/;

export function parseCount(text, name, lo, hi) {
  const v = countValue(String(text));
  if (v === null || v < BigInt(lo) || v > BigInt(hi)) {
    throw new UsageError(`option ${name}: '${text}' is not an integer in ${lo}..${hi}`);
  }
  return Number(v);
}

/** The integer the text means (BigInt), or null if it is none (see above). */
function countValue(s) {
  const m = COUNT.exec(s);
  if (!m) return null;
  const [, sign, int = '', frac = '', expText] = m;
  if (int === '' && frac === '') return null; // "", "+", ".", "e5"
  const fraction = frac.replace(/0+$/, ''); // "1.50e1" = "1.5e1"
  const digits = (int.replace(/[_,]/g, '') + fraction).replace(/^0+/, '');
  if (digits === '') return 0n; // "0e999", "0.000"
  // Past +-1e6 the exact exponent no longer matters (the value is out of any
  // range, or not whole); clamped so that 10n ** e stays cheap.
  const e = Math.max(-1e6, Math.min(1e6, Number(expText ?? 0))) - fraction.length;
  let v;
  if (e >= 0) {
    if (digits.length + e > 400) return null; // far beyond int64 and any hi
    v = BigInt(digits) * 10n ** BigInt(e);
  } else {
    if (-e >= digits.length) return null; // a fraction remains (digits has no leading zero)
    const p = 10n ** BigInt(-e);
    const d = BigInt(digits);
    if (d % p !== 0n) return null; // a fraction remains: not an integer
    v = d / p;
  }
  return sign === '-' ? -v : v;
}

function parseShare(text) {
  const v = Number(text);
  if (text === '' || !Number.isFinite(v) || v < 0 || v > 0.9) {
    throw new UsageError(`option --warmup-share: '${text}' is not a number in 0..0.9`);
  }
  return v;
}

function oneOf(text, name, choices) {
  if (!choices.includes(text)) throw new UsageError(`option ${name}: '${text}' (expected ${choices.join(', ')})`);
  return text;
}

/** LAYER:BYTES -> {layer, bytes}; `name` for the message (stress/targets/dal.mjs reads its option with it). */
export function parsePlant(text, name = '--plant-leak') {
  const m = /^([a-z_]+):(.+)$/.exec(text);
  if (!m) throw new UsageError(`option ${name}: '${text}' (expected LAYER:BYTES)`);
  const layer = oneOf(m[1], name, [...JS_PLANTS, ...NATIVE_PLANTS]);
  return { layer, bytes: parseCount(m[2], name, 1, MAX_PLANT_BYTES) };
}

/**
 * Parse argv (without the runtime and script).  vias: the bindings this
 * driver offers, first = default.  Throws UsageError on any problem.
 */
export function parseOptions(argv, vias = ['addon']) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: false,
      strict: true,
      options: {
        workload: { type: 'string' },
        target: { type: 'string' },
        iterations: { type: 'string' },
        concurrency: { type: 'string' },
        'iteration-timeout': { type: 'string' },
        'target-option': { type: 'string', multiple: true },
        queries: { type: 'string' },
        api: { type: 'string' },
        async: { type: 'boolean' },
        workers: { type: 'string' },
        'sample-every': { type: 'string' },
        'warmup-share': { type: 'string' },
        'db-dir': { type: 'string' },
        postgres: { type: 'string' },
        confirm: { type: 'boolean' },
        json: { type: 'string' },
        html: { type: 'string' },
        'plant-leak': { type: 'string' },
        'latency-every': { type: 'string' },
        'max-errors': { type: 'string' },
        'monitor-param': { type: 'string', multiple: true },
        progress: { type: 'string' },
        via: { type: 'string' },
        lite: { type: 'boolean' },
        attribute: { type: 'boolean' },
        'no-attribute': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new UsageError(e.message);
  }
  const v = parsed.values;
  const target = v.target;
  if (target === '') throw new UsageError('option --target: empty file name');
  for (const k of target !== undefined ? WORKLOAD_ONLY : TARGET_ONLY) {
    if (v[k] !== undefined) {
      throw new UsageError(target !== undefined
        ? `option --${k} is for the DAL's workloads, not a --target${k === 'queries' ? ' (count iterations with --iterations)' : ''}`
        : `option --${k} needs --target FILE`);
    }
  }
  const o = {
    help: !!v.help,
    workload: v.workload ?? DEFAULT_WORKLOAD,
    // With --target, the loops' count is the iterations (o.unit says which).
    queries: v.queries !== undefined ? parseCount(v.queries, '--queries', 1, 2 ** 50)
      : v.iterations !== undefined ? parseCount(v.iterations, '--iterations', 1, 2 ** 50) : DEFAULT_QUERIES,
    target: target ?? null,
    unit: target !== undefined ? 'iteration' : 'query',
    concurrency: v.concurrency !== undefined ? parseCount(v.concurrency, '--concurrency', 1, 65_536) : 1,
    iterationTimeout: v['iteration-timeout'] !== undefined
      ? parseCount(v['iteration-timeout'], '--iteration-timeout', 1, 2 ** 31 - 1) : DEFAULT_ITERATION_TIMEOUT_MS,
    targetOptions: parseTargetOptions(v['target-option'] ?? []),
    api: v.api !== undefined ? oneOf(v.api, '--api', APIS) : 'into',
    async: !!v.async,
    workers: v.workers !== undefined ? parseCount(v.workers, '--workers', 0, 64) : 0,
    sampleEvery: v['sample-every'] !== undefined ? parseCount(v['sample-every'], '--sample-every', 1, 2 ** 50) : 0,
    warmupShare: v['warmup-share'] !== undefined ? parseShare(v['warmup-share']) : 0.2,
    dbDir: v['db-dir'],
    // 'local', a postgres:// URL, or null (SQLite); postgres.js turns
    // 'local' into its server's URL.
    postgres: v.postgres ?? null,
    backend: v.postgres !== undefined ? 'postgres' : 'sqlite',
    // The requests' db on PostgreSQL: a schema of the run's own (the driver sets it).
    runSchema: null,
    json: v.json,
    html: v.html,
    plant: v['plant-leak'] !== undefined ? parsePlant(v['plant-leak']) : null,
    latencyEvery: v['latency-every'] !== undefined ? parseCount(v['latency-every'], '--latency-every', 1, 1_000_000) : 16,
    maxErrors: v['max-errors'] !== undefined ? parseCount(v['max-errors'], '--max-errors', 1, 2 ** 50) : 1000,
    monitorParams: v['monitor-param'] ?? [],
    progress: v.progress !== undefined ? oneOf(v.progress, '--progress', ['auto', 'line', 'plain', 'off']) : 'auto',
    via: v.via !== undefined ? oneOf(v.via, '--via', vias) : vias[0],
    lite: !!v.lite,
    confirm: !!v.confirm,
    // null: the default (on for --target, off for a workload; attribute.js).
    attribute: v.attribute ? true : v['no-attribute'] ? false : null,
  };
  if (v.attribute && v['no-attribute']) throw new UsageError('options --attribute and --no-attribute: give one');
  if (o.workload === '') throw new UsageError('option --workload: empty name');
  if (o.dbDir === '') throw new UsageError('option --db-dir: empty directory name');
  if (o.postgres !== null) {
    const why = checkPostgresOption(o.postgres);
    if (why !== null) throw new UsageError(why);
    if (o.dbDir !== undefined) throw new UsageError("options --postgres and --db-dir: give one (--db-dir is SQLite's data directory)");
  }
  if (o.json === '') throw new UsageError('option --json: empty file name');
  if (o.html === '') throw new UsageError('option --html: empty file name');
  for (const p of o.monitorParams) {
    if (!/^[A-Za-z_.]+=[^;,]+$/.test(p)) throw new UsageError(`option --monitor-param: '${p}' (expected KEY=VALUE)`);
  }
  if (o.workers > 0 && o.queries < o.workers) {
    throw new UsageError(`option --workers: ${o.workers} workers need at least as many ${o.target ? 'iterations' : 'queries'}`);
  }
  if (o.target && o.plant && NATIVE_PLANTS.includes(o.plant.layer)) {
    throw new UsageError(`option --plant-leak: ${o.plant.layer} is planted by the kit's DAL, which a --target does not load ` +
      '(stress/targets/dal.mjs takes --target-option plant=LAYER:BYTES)');
  }
  return o;
}

// --target-option KEY=VALUE, repeatable: ctx.options (strings; a key once).
function parseTargetOptions(list) {
  const out = {};
  for (const item of list) {
    const m = /^([A-Za-z_][A-Za-z0-9_.-]*)=(.*)$/s.exec(item);
    if (!m) throw new UsageError(`option --target-option: '${item}' (expected KEY=VALUE)`);
    if (Object.hasOwn(out, m[1])) throw new UsageError(`option --target-option: ${m[1]} given twice`);
    out[m[1]] = m[2];
  }
  return out;
}

/**
 * Where the user's relative paths start: npm runs a package's scripts from
 * its root and says where it was invoked in INIT_CWD (npm run stress,
 * stress:deno, stress:compare); otherwise the current directory.
 */
export function userCwd(env = process.env) {
  return /^stress(:|$)/.test(env.npm_lifecycle_event ?? '') && env.INIT_CWD ? env.INIT_CWD : process.cwd();
}

/** dalstress's default: queries/100, clamped to 1..1,000,000. */
export function effectiveSampleEvery(o) {
  return o.sampleEvery > 0 ? o.sampleEvery : Math.min(Math.max(Math.floor(o.queries / 100), 1), 1_000_000);
}

/** dal.h / dalshim open options for a native plant ('' for none or a JS plant). */
export function openOptions(o) {
  if (!o.plant || JS_PLANTS.includes(o.plant.layer)) return '';
  const size = COUNTED_PLANTS.includes(o.plant.layer) ? 'plant_leak_every' : 'plant_leak_bytes';
  return `plant_leak=${o.plant.layer};${size}=${o.plant.bytes}`;
}
