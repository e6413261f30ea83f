// driver.js -- the runtime-agnostic core of the JS stress drivers.
//
// A thin per-runtime entry (stress/node/main.js for the addon; the FFI
// drivers for koffi, Bun and Deno) passes a `binding`:
//
//   {
//     name,                 // driver name in the report, e.g. "node-addon"
//     runtime,              // e.g. "node v20.20.2"
//     moduleUrl,            // URL of a module exporting createBinding() (for --workers)
//     load(),               // load the DAL now (RSS after load is read right after)
//     open({dir, options}), // a Database with queryInto/queryRaw/In()/stats()/close()
//                           // and their async forms (lib/database.js's API)
//     monitor,              // the dalmon_* C ABI: start, markStartup, sample,
//                           // recordLatencies, count, fail, markInterrupted,
//                           // finish, reportText, reportJson, writeJson, end, rssBytes
//     gc(),                 // a full collection of this JS heap
//     memory(),             // {jsHeapUsed, jsHeapTotal, jsExternal, jsArrayBuffers} (-1 = n/a)
//   }
//
// and gets the dalstress run: the same steps (docs/dalstress.md), the same
// monitor, report and exit codes (0 no leak, 1 leak, 2 error).  What is
// JS-specific: before each sample the driver collects garbage twice with an
// event-loop turn in between (N-API finalizers run only when the loop turns,
// nodejs/node#26667), and it yields to the event loop after every chunk of
// queries so finalizers, worker messages and signals are never starved.
//
// With --target FILE the work unit is a module of the user's (target.js,
// docs/targets.md) instead of a workload: the same loops, samples, monitor,
// report and exit codes, counted in iterations (run parameter
// unit=iteration), and the DAL is not loaded (binding.load/open are not
// called; the monitor then leaves the DAL's layers out).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';

import { attributeOrRelaunch } from './attribute.js';
import { effectiveSampleEvery, openOptions, parseOptions, usage, userCwd, UsageError } from './options.js';
import { makeJsPlant } from './plants.js';
import { dropSchemaSql, localPostgresOrRelaunch, redactedUrl, runSchemaName } from './postgres.js';
import { Progress } from './progress.js';
import { nextPoint, shareOf } from './sample-points.js';
import { TargetError, TargetUnit, callWithin, loadTarget, runtimeName, targetPath } from './target.js';
import { writeHtml } from '../report/html.js';
import { Workload, setUpWorkload } from './workload.js';
import { WorkloadError, loadWorkload } from './workload-spec.js';

// Queries between event-loop turns.  A turn costs a few microseconds; 1024
// queries take several milliseconds, so the loop pays well under 1 %.
const CHUNK = 1024;
// How often the main thread shows the workers' progress and passes a stop on
// (never when it samples: sample-points.js).
const POLL_MS = 5;

export const yieldNow = () => new Promise((resolve) => setImmediate(resolve));

/** GC twice with an event-loop turn between and after (finalizers run in the turns). */
export async function collect(binding) {
  binding.gc();
  await yieldNow();
  binding.gc();
  await yieldNow();
}

const out = (s) => process.stdout.write(s);
const err = (s) => process.stderr.write(s);

/**
 * Run the stress driver with argv (flags only).  Returns the exit code;
 * the caller exits with it.
 * @param {object|((o: object) => Promise<object>)} binding  see above, or an
 *        async factory of it, called with the parsed flags
 * @param {string[]} argv
 * @param {{program: string, vias?: string[]}} how
 */
export async function main(binding, argv, { program, vias = ['addon'] }) {
  let o;
  try {
    o = parseOptions(argv, vias);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err(`${program}: ${e.message}\n\n${usage(program, vias)}`);
    return 2;
  }
  if (o.help) {
    out(usage(program, vias));
    return 0;
  }
  // --postgres local: the run happens in a copy started beside a throwaway
  // server, whose exit code this returns (before --attribute, so that the
  // server does not run under the tracer).
  const underCluster = localPostgresOrRelaunch(o, { program, err });
  if (underCluster !== null) return await underCluster;
  if (o.postgres !== null) o.runSchema = runSchemaName();
  // --attribute (default with --target): the run happens in a child under
  // the allocation tracer, whose exit code this returns.
  const underTracer = attributeOrRelaunch(o, { program, err });
  if (underTracer !== null) return await underTracer;
  // The workload (or the target) before anything else: a broken file stops
  // the driver before the DAL is loaded (exit 2, nothing sent).
  let workload;
  try {
    if (o.target) o.target = targetPath(o.target, userCwd()); // absolute: the workers import it too
    workload = o.target ? { target: await loadTarget(o.target) } : loadWorkloads(o);
  } catch (e) {
    if (!(e instanceof WorkloadError || e instanceof TargetError)) throw e;
    err(`${program}: ${e.message}\n${e.detail ? `${indent(e.detail)}\n` : ''}`);
    return 2;
  }
  if (typeof binding === 'function') {
    try {
      binding = await binding(o); // o: the parsed flags (--via picks the binding)
    } catch (e) {
      err(`${program}: ${describeError(e)}\n`);
      return 2;
    }
  }
  // On PostgreSQL the DAL opens the URL where it takes a data directory.
  const temporary = !o.dbDir && o.postgres === null;
  let dir;
  try {
    dir = o.postgres ?? (temporary ? mkdtempSync(join(tmpdir(), 'dalstress-js-')) : o.dbDir);
    if (!temporary && o.postgres === null) mkdirSync(dir, { recursive: true });
  } catch (e) {
    err(`${program}: cannot create the data directory: ${e.message}\n`);
    return 2;
  }
  // Ctrl-C / SIGTERM: stop at the next event-loop turn, report, exit 2 (as
  // dalstress).  A second signal exits at once -- unless it comes within a
  // second of the first: a Ctrl-C reaches the whole process group, and a
  // parent that re-started node with flags (stress/node/main.js) forwards it
  // too, so one keypress can arrive twice.
  let interrupted = null;
  let interruptedAt = 0;
  const onSignal = (sig) => {
    if (interrupted !== null) {
      if (performance.now() - interruptedAt < 1000) return;
      if (temporary) rmSync(dir, { recursive: true, force: true });
      process.exit(2);
    }
    interrupted = sig;
    interruptedAt = performance.now();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await stress(binding, o, workload, { program, dir, temporary, interrupted: () => interrupted });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (temporary) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The workload as the loops use it: `wire` for into/raw and for the seed
 * (floats stay float64), `loop` what the query loop expands (the builder's
 * plain-number form with --api builder).
 */
export function loadWorkloads(o) {
  // On PostgreSQL: that backend's answers, and the run's own schema as db.
  const how = { backend: o.backend, db: o.runSchema };
  const wire = loadWorkload(o.workload, how);
  return { wire, loop: o.api === 'builder' ? loadWorkload(o.workload, { ...how, builder: true }) : wire };
}

function describeError(e) {
  return `${e && e.code ? `${e.code}: ` : ''}${e && e.message ? e.message : String(e)}`;
}

const indent = (text) => text.split('\n').map((l) => `    ${l}`).join('\n');

/**
 * The DAL, opened on dir with the workload's schema and seed (before the
 * monitor starts: not counted, not sampled).  Returns {db, close} or null
 * after saying why.
 */
function openWorkload(binding, o, workload, { program, dir }) {
  try {
    binding.load();
  } catch (e) {
    err(`${program}: cannot load the DAL: ${describeError(e)}\n`);
    return null;
  }
  const rssAfterLoad = binding.monitor.rssBytes();
  let db;
  try {
    db = binding.open({ dir, options: openOptions(o) });
  } catch (e) {
    err(`${program}: cannot open ${o.postgres !== null ? redactedUrl(dir) : dir}: ${describeError(e)}\n`);
    return null;
  }
  // On PostgreSQL the schema outlives the handle: dropped however the run
  // ends.  Returns false after saying why it could not be.
  const close = () => {
    let dropped = true;
    try {
      if (o.postgres !== null) db.exec(dropSchemaSql(o.runSchema), o.runSchema);
    } catch (e) {
      err(`${program}: cannot drop the run's schema ${o.runSchema}: ${describeError(e)}\n`);
      dropped = false;
    }
    db.close();
    return dropped;
  };
  // Builder queries target the workload's database file.
  try {
    db.use(workload.wire.db);
    setUpWorkload(db, workload.wire);
  } catch (e) {
    err(`${program}: workload ${workload.wire.name}: cannot set up: ${describeError(e)}\n`);
    close();
    return null;
  }
  return { db, rssAfterLoad, name: workload.wire.name, close };
}

/**
 * The target, set up on the main thread (without --workers; each worker
 * sets up its own).  Returns {state, rssAfterLoad, close} or null after
 * saying why.
 */
async function openTarget(binding, o, target, { program, dir }) {
  const t = target.module;
  let state;
  if (o.workers === 0 && t.setup) {
    const ctx = {
      dir, runtime: runtimeName(), workerIndex: 0, workers: 0, iterations: o.queries,
      options: Object.freeze({ ...o.targetOptions }),
    };
    try {
      state = await callWithin('setup', o.iterationTimeout, () => t.setup(ctx));
    } catch (e) {
      if (!(e instanceof TargetError)) throw e;
      err(`${program}: target ${target.name}: ${e.message}\n${e.detail ? `${indent(e.detail)}\n` : ''}`);
      return null;
    }
  }
  return { state, rssAfterLoad: binding.monitor.rssBytes(), name: target.name };
}

// One run, and with --confirm a second one of twice the queries when the
// first is borderline (dalmonitor.h, dalmon_borderline): the second names
// the first (dalmon_mark_confirmation), and its verdict and exit code
// stand.  Both reports are printed; --json and --html get the second's.
async function stress(binding, o, workload, ctx) {
  const { monitor } = binding;
  const first = await runOnce(binding, o, workload, ctx, null);
  if (first.run === null) return first.code;
  let { code } = first;
  if (o.confirm && first.borderline && ctx.interrupted() === null) {
    const again = { ...o, queries: 2 * o.queries };
    // On PostgreSQL the same database: the schema was dropped, and the
    // second run creates it again.
    const dir = o.postgres !== null ? ctx.dir : join(ctx.dir, 'confirm');
    err(`${ctx.program}: the verdict is borderline: running again with ${again.queries} ${o.target ? 'iterations' : 'queries'} ` +
      `in ${dir} (--confirm)\n`);
    try {
      if (o.postgres === null) mkdirSync(dir, { recursive: true });
    } catch (e) {
      err(`${ctx.program}: cannot create ${dir}: ${e.message}\n`);
      monitor.end(first.run);
      return 2;
    }
    const second = await runOnce(binding, again, workload, { ...ctx, dir }, first.run);
    code = second.code;
    if (second.run !== null) monitor.end(second.run);
  }
  monitor.end(first.run);
  return code;
}

// Returns {code, run, borderline}: run is the monitor's run, finished and
// not ended (null when none started).  confirms: the run this one repeats.
async function runOnce(binding, o, workload, { program, dir, temporary, interrupted }, confirms) {
  const { monitor } = binding;
  const none = (code) => ({ code, run: null, borderline: false });
  const target = o.target ? workload.target : null;
  const opened = target ? await openTarget(binding, o, target, { program, dir }) : openWorkload(binding, o, workload, { program, dir });
  if (opened === null) return none(2);
  const db = opened.db ?? null;
  const closeDb = () => (db ? opened.close() : true);
  // Said once for stderr and the report: "target libc strlen" or "workload reference".
  // A target's name goes into the monitor's mode parameter, whose pairs are
  // separated by ';' and ',': those read ' / ' there, whitespace one space.
  const what = target ? `target ${target.name.replace(/\s*[;,]\s*/g, ' / ').replace(/\s+/g, ' ').trim()}`
    : `workload ${workload.wire.name}`;
  // A target's failure: one line for the report, the stack on stderr.
  const targetFailure = (e) => {
    err(`${program}: ${what}: ${e.message}\n${e.detail ? `${indent(e.detail)}\n` : ''}`);
    return `${what}: ${e.message}`;
  };

  const sampleEvery = effectiveSampleEvery(o);
  const threads = Math.max(1, o.workers);
  const planted = o.plant ? ` planted ${o.plant.layer}:${o.plant.bytes}` : '';
  // The workload is named in the mode, as dalstress does ("... workload rows").
  const how = target ? `${o.concurrency > 1 ? `concurrency ${o.concurrency}` : 'sequential'}`
    : `${o.api}${o.async ? ' async' : ''}`;
  const mode = `${how}${o.workers ? ` in ${o.workers} workers` : ''}${planted} ${what}${o.postgres !== null ? ' on postgres' : ''}`;
  const params = [
    `driver=${binding.name}`, `runtime=${binding.runtime}`, `mode=${mode}`, `queries=${o.queries}`,
    `sample_every=${sampleEvery}`, `warmup=${o.warmupShare}`, `threads=${threads}`, `unit=${o.unit}`, 'force_gc=1',
    ...o.monitorParams,
  ].join(';');
  let run;
  try {
    run = monitor.start(params);
  } catch (e) {
    err(`${program}: ${describeError(e)}\n`);
    closeDb();
    return none(2);
  }
  const count = `${o.queries} ${target ? 'iterations' : 'queries'}`;
  err(`${program}: ${what}, ${count}, ` +
    `${target ? `concurrency ${o.concurrency}, timeout ${o.iterationTimeout} ms` : `api ${o.api} (${o.async ? 'async' : 'sync'})`}, ` +
    `${o.workers ? `${o.workers} workers` : 'main thread'}, sample every ${sampleEvery}, ` +
    `warm-up ${o.warmupShare.toFixed(2)}, ` +
    `${o.postgres !== null ? `postgres ${redactedUrl(dir)} (schema ${o.runSchema})` : `data dir ${dir}${temporary ? ' (temporary)' : ''}`}${planted}\n`);

  const progress = new Progress({
    name: program, total: o.queries, style: o.progress, isTTY: !!process.stderr.isTTY,
    write: err, rss: () => monitor.rssBytes(), unit: target ? 'it' : 'q',
  });
  const onError = (m) => err(`${program}: ${m}\n`);
  const plant = makeJsPlant(o.plant);
  // Query 1 of N, on the main thread in every mode: time to first query.
  // It is thread 0's query 0; with --workers, worker 0 goes on from query 1.
  // A target with --workers runs only in the workers (each sets up its own
  // state), so its time to first iteration is not known here (n/a).
  let first = null;
  let firstFailure = null;
  if (target && o.workers === 0) {
    first = new TargetUnit({
      target, state: opened.state, concurrency: o.concurrency, timeoutMs: o.iterationTimeout,
      latencyEvery: o.latencyEvery, plant,
    });
    try {
      await first.runAsync(1);
    } catch (e) {
      if (!(e instanceof TargetError)) throw e;
      firstFailure = targetFailure(e);
    }
  } else if (!target) {
    first = new Workload({ db, spec: workload.loop, api: o.api, latencyEvery: o.latencyEvery, onError, plant });
    if (o.async) await first.runAsync(1);
    else first.run(1);
  }
  monitor.markStartup(run, opened.rssAfterLoad, first ? Math.round(performance.now() * 1e6) : -1);
  const flushed = first ? first.flush(monitor, run) : { queries: 0, errors: 0 };
  const errors = flushed.errors;

  const sampleNow = async (queries, extra = null) => {
    await collect(binding);
    const m = binding.memory();
    let add = { jsHeapUsed: 0, jsHeapTotal: 0, jsExternal: 0, jsArrayBuffers: 0 };
    if (extra) add = await extra();
    const sum = (a, b) => (a < 0 ? -1 : a + b);
    monitor.sample(run, queries, sum(m.jsHeapUsed, add.jsHeapUsed), sum(m.jsHeapTotal, add.jsHeapTotal),
      sum(m.jsExternal, add.jsExternal), sum(m.jsArrayBuffers, add.jsArrayBuffers));
  };
  const started = flushed.queries; // 1, or 0 (a target in workers; a first iteration that failed)
  await sampleNow(started); // START

  const loop = firstFailure !== null ? { done: started, failure: firstFailure }
    : o.workers === 0
      ? await mainThreadLoop({ o, run, monitor, first, progress, sampleNow, sampleEvery, errors, interrupted, targetFailure })
      : await workersLoop({ o, binding, dir, run, progress, sampleNow, sampleEvery, errors, interrupted, onError, started, targetFailure });
  const { done, failure } = loop;
  const workers = loop.workers ?? null;
  if (failure !== null) monitor.fail(run, failure);
  await sampleNow(done, workers ? workers.figures : null); // END (the workers' heaps included)
  // Teardown after END: what it frees is not taken for the end of a leak.
  if (workers) {
    for (const f of await workers.release()) monitor.fail(run, f);
  } else if (target && target.module.teardown) {
    try {
      await callWithin('teardown', o.iterationTimeout, () => target.module.teardown(opened.state));
    } catch (e) {
      if (!(e instanceof TargetError)) throw e;
      monitor.fail(run, targetFailure(e));
    }
  }
  // Stopped early: partial verdicts, exit 2 (dalmonitor.h).
  if (interrupted() !== null) monitor.markInterrupted(run, interrupted());
  if (confirms !== null) monitor.markConfirmation(run, confirms);
  let code = monitor.finish(run);
  const borderline = monitor.borderline(run) === 1;
  progress.finish(done);
  out(monitor.reportText(run));
  if (o.json) {
    try {
      monitor.writeJson(run, o.json);
    } catch (e) {
      err(`${program}: cannot write ${o.json}: ${describeError(e)}\n`);
      code = 2;
    }
  }
  if (o.html) {
    // The monitor's JSON text as is (int64 figures stay exact), drawn by the one page.
    try {
      writeHtml(o.html, monitor.reportJson(run));
    } catch (e) {
      err(`${program}: cannot write ${o.html}: ${describeError(e)}\n`);
      code = 2;
    }
  }
  if (!closeDb()) code = 2;
  if (plant) plant.kept.length = 0;
  return { code, run, borderline };
}

async function mainThreadLoop({ o, run, monitor, first, progress, sampleNow, sampleEvery, errors, interrupted, targetFailure }) {
  const wl = first;
  let done = 1;
  let nextSample = sampleEvery > 1 ? sampleEvery : 2;
  let failure = null;
  while (done < o.queries && interrupted() === null) {
    const upTo = Math.min(o.queries, nextSample, done + CHUNK);
    try {
      // A target's iterations may return Promises: always awaited (TargetUnit).
      done += o.target || o.async ? await wl.runAsync(upTo - done) : wl.run(upTo - done);
    } catch (e) {
      // A workload that cannot be expanded (a value out of range), or a target
      // that threw, rejected or hung: the run is void.
      if (!(e instanceof WorkloadError || e instanceof TargetError)) throw e;
      const f = wl.flush(monitor, run);
      errors += f.errors;
      done += f.queries; // those finished before the failure
      failure = e instanceof TargetError ? targetFailure(e) : e.message;
      break;
    }
    errors += wl.flush(monitor, run).errors;
    if (errors >= o.maxErrors) {
      failure = `stopped after ${errors} errors (--max-errors ${o.maxErrors})`;
      break;
    }
    progress.update(done);
    if (done === nextSample && done < o.queries) {
      await sampleNow(done);
      nextSample += sampleEvery;
    } else {
      await yieldNow();
    }
  }
  return { done, errors, failure };
}

// --workers N: each worker opens its own handle on the same data directory
// and issues its share of the queries (the first workers take the
// remainder); counts and latencies go to the monitor from the workers
// (lock-free calls).  Samples are taken at the same counts as on the main
// thread, with every worker paused there (sample-points.js): each worker
// runs its share of the interval up to the next sample point, collects its
// own heap, reports its figures and waits; when all have paused the main
// thread samples (their figures added to its own) and resumes them.
async function workersLoop({ o, binding, dir, run, progress, sampleNow, sampleEvery, errors, interrupted, onError, started, targetFailure }) {
  // Imported only here: node:worker_threads costs ~1.6 MB of RSS in a
  // process that never starts a worker.
  const { Worker } = await import('node:worker_threads');
  const n = o.workers;
  const rest = o.queries - started;
  const progressSlots = new BigInt64Array(new SharedArrayBuffer(8 * n));
  const stop = new Int32Array(new SharedArrayBuffer(4));
  // The run's error count so far (the main thread's first query included);
  // workers add theirs and stop when it reaches --max-errors.
  // 64-bit: --max-errors goes up to 2^50.
  const errorCount = new BigInt64Array(new SharedArrayBuffer(8));
  errorCount[0] = BigInt(errors);
  const workers = [];
  const finished = [];
  let failure = null;
  const lateFailures = []; // teardown failures, reported after the END sample
  // Resolved when every worker has paused at the current sample point or
  // has finished (stopped early: a failure, --max-errors, a signal).
  let arrived = null;
  const checkArrived = () => {
    if (arrived !== null && workers.every((s) => s.paused !== null || s.done)) {
      const a = arrived;
      arrived = null;
      a();
    }
  };
  for (let i = 0; i < n; i++) {
    const w = new Worker(new URL('./worker.js', import.meta.url), {
      workerData: {
        bindingUrl: binding.moduleUrl, options: openOptions(o), api: o.api, async: o.async, workload: o.workload,
        backend: o.backend, runSchema: o.runSchema,
        latencyEvery: o.latencyEvery, queries: shareOf(i, n, rest), run, plant: o.plant, index: i,
        // Where to pause: sample points of the whole run (sample-points.js).
        started, total: o.queries, sampleEvery,
        progress: progressSlots, stop, errorCount, maxErrors: o.maxErrors,
        // A target's worker gets a directory of its own (ctx.dir); a workload's
        // workers share the database.
        dir: o.target ? join(dir, `worker-${i}`) : dir,
        target: o.target, workers: n, concurrency: o.concurrency,
        iterationTimeout: o.iterationTimeout, targetOptions: o.targetOptions,
      },
    });
    const state = { worker: w, done: false, exited: false, errors: 0, replies: [], paused: null };
    finished.push(new Promise((resolve) => {
      const end = () => { state.done = true; resolve(); checkArrived(); };
      w.on('message', (m) => {
        if (m.type === 'done') { state.errors = m.errors; end(); }
        else if (m.type === 'paused') { state.paused = m; checkArrived(); }
        else if (m.type === 'memory') state.replies.shift()?.(m);
        else if (m.type === 'error') onError(`worker ${i}: ${m.message}`);
        else if (m.type === 'failure') {
          const f = targetFailure(Object.assign(new TargetError(`worker ${i}: ${m.message}`), { detail: m.detail }));
          if (state.done) lateFailures.push(f);
          else failure ??= f;
        }
      });
      w.on('error', (e) => { failure = `worker ${i} failed: ${describeError(e)}`; end(); });
      w.on('exit', () => {
        state.exited = true;
        for (const r of state.replies.splice(0)) r(null); // nobody left to answer
        if (!state.done) { failure ??= `worker ${i} exited early`; end(); }
      });
    }));
    workers.push(state);
  }
  const total = () => started + progressSlots.reduce((a, b) => a + Number(b), 0);
  const add = (figures) => {
    const sum = { jsHeapUsed: 0, jsHeapTotal: 0, jsExternal: 0, jsArrayBuffers: 0 };
    for (const f of figures) if (f) for (const k of Object.keys(sum)) sum[k] += f[k];
    return sum;
  };
  const fromWorkers = async () => add(await Promise.all(workers.map((s) => (s.exited ? null
    : new Promise((resolve) => { s.replies.push(resolve); s.worker.postMessage('sample'); })))));
  // Progress on stderr, and a signal or a failure passed on to the workers
  // (they look at the flag between chunks).  Display only: no sample is
  // taken here.
  const watch = setInterval(() => {
    progress.update(total());
    if (interrupted() !== null || failure !== null) Atomics.store(stop, 0, 1);
  }, POLL_MS);
  const resume = () => {
    for (const s of workers) {
      if (s.paused !== null) { s.paused = null; s.worker.postMessage('resume'); }
    }
  };
  for (let point = nextPoint(started, sampleEvery); point < o.queries; point += sampleEvery) {
    await new Promise((resolve) => { arrived = resolve; checkArrived(); });
    // A worker that finished before a sample point stopped early (a failure,
    // --max-errors, a signal): no more samples, and all the others stop too.
    if (!workers.every((s) => s.paused !== null && s.paused.point === point)) {
      Atomics.store(stop, 0, 1);
      break;
    }
    const figures = add(workers.map((s) => s.paused));
    await sampleNow(point, async () => figures);
    progress.update(point);
    resume();
  }
  resume(); // after a stop: the paused ones see the flag and finish
  await Promise.all(finished);
  clearInterval(watch);
  const done = total();
  for (const s of workers) errors += s.errors;
  if (failure === null && errors >= o.maxErrors) failure = `stopped after ${errors} errors (--max-errors ${o.maxErrors})`;
  // Workers wait after their share until released, so that their heaps are
  // part of the END sample too.
  // Released, a target's worker tears down first; release() returns the
  // teardown failures.
  const release = async () => {
    for (const s of workers) if (!s.exited) s.worker.postMessage('exit');
    await Promise.all(workers.map((s) => (s.exited ? null : new Promise((resolve) => s.worker.once('exit', resolve)))));
    return lateFailures;
  };
  return { done, errors, failure, workers: { figures: fromWorkers, release } };
}
