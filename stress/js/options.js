// options.js -- the command line of the JS stress drivers (Node addon,
// koffi, Bun, Deno): one spec, the same option names and meanings as
// dalstress (docs/dalstress.md) wherever the two overlap.
//
// Uses node:util parseArgs, which Node, Bun and Deno all provide.
import { parseArgs } from 'node:util';

import { DEFAULT_WORKLOAD, WORKLOAD_NAMES } from './workload-spec.js';

export const DEFAULT_QUERIES = 100_000_000;
export const APIS = ['into', 'raw', 'builder'];
export const JS_PLANTS = ['js_heap', 'js_external'];
// Native plants, passed to open() as options (the DAL's three, the shim's one).
export const NATIVE_PLANTS = ['go_cmem', 'go_heap', 'sqlite_stmt', 'shim_malloc'];
export const MAX_PLANT_BYTES = 1_048_576;

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
  --json FILE         write the JSON report (docs/report-schema.md) to FILE
  --html FILE         write the HTML report (docs/html-report.md) to FILE: one
                      self-contained page with charts, opens with no network
  --plant-leak L:B    plant a leak of B bytes per query (1..${MAX_PLANT_BYTES}) in layer L:
                      js_heap (retained strings), js_external (retained Uint8Arrays),
                      or go_cmem, go_heap, sqlite_stmt, shim_malloc (native, as in dalstress)
  --latency-every K   time one query in K on average, individually (default 16;
                      1 = every query)
  --max-errors N      stop after N errors (default 1000); the run then fails
  --monitor-param K=V extra dalmon_start parameter, e.g. slope.rss=4 (repeatable)
  --lite              Node: run V8 in lite mode (interpreter and baseline code,
                      no optimizing compiler).  Default: Node as users run it.
                      Lite mode keeps ~4-6 MB of compiler code pages out of the
                      measured RSS but slows JS-heavy paths (--api builder);
                      see docs/api.md
  --progress auto|line|plain|off
                      progress on stderr: auto = one updating line on a TTY,
                      plain periodic lines otherwise (default auto)
${vias.length > 1 ? `  --via ${vias.join('|')}\n                      binding to stress (default ${vias[0]})\n` : ''}  --help              this text

Exit codes: 0 no leak, 1 leak, 2 error (bad flag, failed or wrong answer,
too few samples, interrupted).
`;
}

export class UsageError extends Error {}

// Integer with optional exponent ("100000000", "1e8") or '_' / ',' digit
// grouping ("100_000_000"), as dalstress accepts.
export function parseCount(text, name, lo, hi) {
  const s = String(text).replace(/[_,]/g, '');
  let v = NaN;
  if (/^[0-9]+$/.test(s)) v = Number(s);
  else if (/^[0-9]*\.?[0-9]+(e[0-9]+)?$/i.test(s)) v = Number(s);
  if (!Number.isSafeInteger(v) || v < lo || v > hi) {
    throw new UsageError(`option ${name}: '${text}' is not an integer in ${lo}..${hi}`);
  }
  return v;
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

function parsePlant(text) {
  const m = /^([a-z_]+):(.+)$/.exec(text);
  if (!m) throw new UsageError(`option --plant-leak: '${text}' (expected LAYER:BYTES)`);
  const layer = oneOf(m[1], '--plant-leak', [...JS_PLANTS, ...NATIVE_PLANTS]);
  return { layer, bytes: parseCount(m[2], '--plant-leak', 1, MAX_PLANT_BYTES) };
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
        queries: { type: 'string' },
        api: { type: 'string' },
        async: { type: 'boolean' },
        workers: { type: 'string' },
        'sample-every': { type: 'string' },
        'warmup-share': { type: 'string' },
        'db-dir': { type: 'string' },
        json: { type: 'string' },
        html: { type: 'string' },
        'plant-leak': { type: 'string' },
        'latency-every': { type: 'string' },
        'max-errors': { type: 'string' },
        'monitor-param': { type: 'string', multiple: true },
        progress: { type: 'string' },
        via: { type: 'string' },
        lite: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new UsageError(e.message);
  }
  const v = parsed.values;
  const o = {
    help: !!v.help,
    workload: v.workload ?? DEFAULT_WORKLOAD,
    queries: v.queries !== undefined ? parseCount(v.queries, '--queries', 1, 2 ** 50) : DEFAULT_QUERIES,
    api: v.api !== undefined ? oneOf(v.api, '--api', APIS) : 'into',
    async: !!v.async,
    workers: v.workers !== undefined ? parseCount(v.workers, '--workers', 0, 64) : 0,
    sampleEvery: v['sample-every'] !== undefined ? parseCount(v['sample-every'], '--sample-every', 1, 2 ** 50) : 0,
    warmupShare: v['warmup-share'] !== undefined ? parseShare(v['warmup-share']) : 0.2,
    dbDir: v['db-dir'],
    json: v.json,
    html: v.html,
    plant: v['plant-leak'] !== undefined ? parsePlant(v['plant-leak']) : null,
    latencyEvery: v['latency-every'] !== undefined ? parseCount(v['latency-every'], '--latency-every', 1, 1_000_000) : 16,
    maxErrors: v['max-errors'] !== undefined ? parseCount(v['max-errors'], '--max-errors', 1, 2 ** 50) : 1000,
    monitorParams: v['monitor-param'] ?? [],
    progress: v.progress !== undefined ? oneOf(v.progress, '--progress', ['auto', 'line', 'plain', 'off']) : 'auto',
    via: v.via !== undefined ? oneOf(v.via, '--via', vias) : vias[0],
    lite: !!v.lite,
  };
  if (o.workload === '') throw new UsageError('option --workload: empty name');
  if (o.dbDir === '') throw new UsageError('option --db-dir: empty directory name');
  if (o.json === '') throw new UsageError('option --json: empty file name');
  if (o.html === '') throw new UsageError('option --html: empty file name');
  for (const p of o.monitorParams) {
    if (!/^[A-Za-z_.]+=[^;,]+$/.test(p)) throw new UsageError(`option --monitor-param: '${p}' (expected KEY=VALUE)`);
  }
  if (o.workers > 0 && o.queries < o.workers) {
    throw new UsageError(`option --workers: ${o.workers} workers need at least as many queries`);
  }
  return o;
}

/** dalstress's default: queries/100, clamped to 1..1,000,000. */
export function effectiveSampleEvery(o) {
  return o.sampleEvery > 0 ? o.sampleEvery : Math.min(Math.max(Math.floor(o.queries / 100), 1), 1_000_000);
}

/** dal.h / dalshim open options for a native plant ('' for none or a JS plant). */
export function openOptions(o) {
  if (!o.plant || JS_PLANTS.includes(o.plant.layer)) return '';
  return `plant_leak=${o.plant.layer};plant_leak_bytes=${o.plant.bytes}`;
}
