// worker.js -- one worker_thread of the JS stress drivers (--workers N).
//
// Opens its own handle on the shared data directory through the same
// binding as the main thread (workerData.bindingUrl exports createBinding),
// issues its share of the workload's queries as thread t = its index
// (worker 0 goes on from thread 0's query 1, which the main thread sent),
// hands counts and latencies to the monitor itself (those dalmon_* calls
// are lock-free and process-wide),
// publishes its progress in a shared slot, pauses at every sample point of
// the run (sample-points.js: it runs its share of each interval, collects
// its heap, reports its figures as 'paused' and waits for 'resume'), and
// after its share answers the END sample's 'sample' request the same way.
// With --target it runs the target instead (docs/targets.md): its own
// setup(ctx) with ctx.workerIndex = its index, iterations i = 0.. of its
// share, teardown(state) when released.
import { mkdirSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

import { collect, loadWorkloads, yieldNow } from './driver.js';
import { makeJsPlant } from './plants.js';
import { nextPoint, shareOf } from './sample-points.js';
import { TargetError, TargetUnit, callWithin, loadTarget, runtimeName } from './target.js';
import { Workload } from './workload.js';

const CHUNK = 1024;
const w = workerData;
const { createBinding } = await import(w.bindingUrl);
const binding = await createBinding();

// --target: set up in this worker (its own ctx.dir and state), torn down
// when the main thread releases it, after the END sample.
let target = null;
let state;
const fail = (e) => parentPort.postMessage({ type: 'failure', message: e.message, detail: e.detail });

// The main thread's 'resume' after a sample point.
let resumed = null;
parentPort.on('message', async (m) => {
  if (m === 'resume') {
    const r = resumed;
    resumed = null;
    if (r) r();
  } else if (m === 'sample') {
    await collect(binding);
    parentPort.postMessage({ type: 'memory', ...binding.memory() });
  } else if (m === 'exit') {
    if (target !== null && target.module.teardown) {
      try {
        await callWithin('teardown', w.iterationTimeout, () => target.module.teardown(state));
      } catch (e) {
        if (!(e instanceof TargetError)) throw e;
        fail(e);
      }
    }
    // Deno's node:worker_threads has no parentPort.close(); its workers end with close().
    if (typeof parentPort.close === 'function') parentPort.close();
    else globalThis.close();
  }
});

// At a sample point: collect this heap, report it, wait for the main
// thread's sample to be taken.
async function pause(point) {
  await collect(binding);
  const go = new Promise((resolve) => { resumed = resolve; });
  parentPort.postMessage({ type: 'paused', point, ...binding.memory() });
  await go;
}

// One loop for a workload and a target: n units at a time up to this
// worker's share of the next sample point, counts and latencies to the
// monitor, progress in the shared slot.
async function loop(unit, step, close) {
  let done = 0;
  let errors = 0;
  // --max-errors bounds the run's total, not each worker's: every worker adds
  // its errors to the shared count (which starts with the main thread's) and
  // all stop once it reaches the limit.
  const stopped = () => Atomics.load(w.stop, 0) !== 0 || Atomics.load(w.errorCount, 0) >= w.maxErrors;
  const upTo = (point) => (point < w.total ? shareOf(w.index, w.workers, point - w.started) : w.queries);
  let point = nextPoint(w.started, w.sampleEvery);
  let until = upTo(point);
  run: for (;;) {
    while (done < until && !stopped()) {
      const n = Math.min(CHUNK, until - done);
      try {
        done += await step(n);
      } catch (e) {
        if (!(e instanceof TargetError)) throw e;
        done += unit.flush(binding.monitor, w.run).queries;
        Atomics.store(w.progress, w.index, BigInt(done));
        fail(e);
        break run;
      }
      const e = unit.flush(binding.monitor, w.run).errors;
      errors += e;
      if (e > 0) Atomics.add(w.errorCount, 0, BigInt(e));
      Atomics.store(w.progress, w.index, BigInt(done));
      await yieldNow();
    }
    if (done < until || point >= w.total) break; // stopped, or the share is done
    await pause(point);
    point += w.sampleEvery;
    until = upTo(point);
  }
  close();
  parentPort.postMessage({ type: 'done', done, errors });
  // Stay until released: the plant (if any) stays reachable and the END sample
  // can still ask for this heap.
  globalThis.__dalkitPlant = unit.plant;
}

if (w.target) {
  const ctx = {
    dir: w.dir, runtime: runtimeName(), workerIndex: w.index, workers: w.workers,
    iterations: w.queries, options: Object.freeze({ ...w.targetOptions }),
  };
  let unit = null;
  try {
    mkdirSync(ctx.dir, { recursive: true });
    target = await loadTarget(w.target);
    const t = target.module;
    state = t.setup ? await callWithin(`worker ${w.index}: setup`, w.iterationTimeout, () => t.setup(ctx)) : undefined;
    unit = new TargetUnit({
      target, state, concurrency: w.concurrency, timeoutMs: w.iterationTimeout, latencyEvery: w.latencyEvery,
      plant: makeJsPlant(w.plant),
    });
  } catch (e) {
    if (!(e instanceof TargetError)) throw e;
    fail(e);
    parentPort.postMessage({ type: 'done', done: 0, errors: 0 });
  }
  if (unit !== null) await loop(unit, (n) => unit.runAsync(n), () => {});
} else {
  // Loaded again here (a worker shares no objects): the main thread has
  // validated it and run its schema and seed.
  const spec = loadWorkloads(w).loop;
  const db = binding.open({ dir: w.dir, options: w.options });
  db.use(spec.db);
  const onError = (message) => parentPort.postMessage({ type: 'error', message });
  const wl = new Workload({
    db, spec, api: w.api, thread: w.index, firstQuery: w.index === 0 ? 1 : 0,
    latencyEvery: w.latencyEvery, onError, plant: makeJsPlant(w.plant),
  });
  await loop(wl, (n) => (w.async ? wl.runAsync(n) : wl.run(n)), () => db.close());
}
