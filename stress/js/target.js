// target.js -- a --target module (docs/targets.md) as a work unit of the JS
// stress driver: loaded and checked, set up and torn down under a time
// limit, and its iterations run in chunks by TargetUnit, which the driver's
// loops use as they use a Workload (runAsync(n), flush(monitor, run)), so a
// target gets the same sampling, GC, warm-up, report and exit codes.
//
//   export default {
//     name: 'resize a 256x256 image',   // optional; default: the file name
//     async setup(ctx) { return state }, // optional; ctx: see TargetContext in lib/index.d.ts
//     iteration(state, i) {},            // required; may return a Promise
//     async teardown(state) {},          // optional
//   };
//
// Runtime-agnostic (Node, Bun, Deno): dynamic import, performance.now(),
// setTimeout.
import { basename, isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** A target that cannot be loaded or that failed: the run stops with exit 2. */
export class TargetError extends Error {
  /**
   * @param {string} message  one line, for the report ("iteration 7 threw: Error: boom")
   * @param {string} [detail] the error's stack (or its text), for stderr
   */
  constructor(message, detail = '') {
    super(message);
    this.detail = detail;
  }
}

export const runtimeName = () => (typeof Bun !== 'undefined' ? 'bun' : typeof Deno !== 'undefined' ? 'deno' : 'node');

/** An error's stack when it has one (it starts with its message), else its text. */
function stackOf(e) {
  if (e instanceof Error && typeof e.stack === 'string' && e.stack !== '') return e.stack;
  try {
    return String(e);
  } catch {
    return Object.prototype.toString.call(e);
  }
}

/** The thrown value on one line: "Error: boom" (a stack's first line), or its text. */
function headline(e) {
  const s = e instanceof Error ? `${e.name}: ${e.message}` : stackOf(e);
  return s.split('\n')[0];
}

/** The absolute path of FILE: a relative one starts at cwd (docs/targets.md). */
export function targetPath(file, cwd) {
  return isAbsolute(file) ? file : resolve(cwd, file);
}

/**
 * Import and check a target module: its default export (or, without one,
 * the module's named exports) must have an iteration function; setup and
 * teardown, when present, must be functions.  Throws TargetError.
 * @param {string} path  absolute
 */
export async function loadTarget(path) {
  let mod;
  try {
    mod = await import(pathToFileURL(path).href);
  } catch (e) {
    throw new TargetError(`cannot import target ${path}: ${headline(e)}`, stackOf(e));
  }
  const t = mod.default ?? mod;
  if (t === null || (typeof t !== 'object' && typeof t !== 'function')) {
    throw new TargetError(`target ${path}: the default export is ${t === null ? 'null' : typeof t}, not an object with iteration()`);
  }
  if (typeof t.iteration !== 'function') {
    throw new TargetError(`target ${path}: no iteration(state, i) function (docs/targets.md)`);
  }
  for (const k of ['setup', 'teardown']) {
    if (t[k] !== undefined && typeof t[k] !== 'function') throw new TargetError(`target ${path}: ${k} is ${typeof t[k]}, not a function`);
  }
  if (t.name !== undefined && (typeof t.name !== 'string' || t.name === '')) {
    throw new TargetError(`target ${path}: name must be a non-empty string`);
  }
  return { path, module: t, name: t.name ?? basename(path) };
}

/**
 * Call f(); when it returns a Promise, wait for it at most timeoutMs.
 * Throws TargetError naming `what` when it throws, rejects or never settles.
 */
export async function callWithin(what, timeoutMs, f) {
  let r;
  try {
    r = f();
  } catch (e) {
    throw new TargetError(`${what} threw: ${headline(e)}`, stackOf(e));
  }
  if (!isThenable(r)) return r;
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new TargetError(`${what} did not settle within ${timeoutMs} ms (--iteration-timeout)`)), timeoutMs);
  });
  try {
    return await Promise.race([Promise.resolve(r).catch((e) => {
      throw new TargetError(`${what} rejected: ${headline(e)}`, stackOf(e));
    }), late]);
  } finally {
    clearTimeout(timer);
  }
}

function isThenable(r) {
  return r !== null && (typeof r === 'object' || typeof r === 'function') && typeof r.then === 'function';
}

/**
 * One thread's iterations of a set-up target.  runAsync(n) runs n
 * iterations (fewer when the latency batch fills) with at most
 * `concurrency` of them in flight, and returns when all it started have
 * settled, so that every sample sees only finished iterations.  A failure
 * (throw, rejection, no settlement within timeoutMs) throws TargetError;
 * the run is then over.
 */
export class TargetUnit {
  /**
   * @param {object} cfg
   * @param {{module: object, name: string}} cfg.target   loadTarget()'s result
   * @param {unknown} cfg.state            what setup returned
   * @param {number} cfg.concurrency       async iterations in flight at most (>= 1)
   * @param {number} cfg.timeoutMs         an iteration's time limit
   * @param {number} cfg.latencyEvery      time one iteration in K on average
   * @param {number} [cfg.firstIteration]  i of the first iteration (the main thread ran iteration 0)
   * @param {{tick(): void}|null} [cfg.plant]  a JS plant, ticked once per iteration
   */
  constructor({ target, state, concurrency, timeoutMs, latencyEvery, firstIteration = 0, plant = null }) {
    this.fn = target.module.iteration;
    this.self = target.module;
    this.state = state;
    this.concurrency = concurrency;
    this.timeoutMs = timeoutMs;
    this.latencyEvery = latencyEvery;
    this.plant = plant;
    this.next = firstIteration;
    this.latencies = new Float64Array(4096);
    this.latencyCount = 0;
    this.untilTimed = this.#gap();
    this.iterations = 0;
    // In flight: i -> start (ms).  One timer watches the oldest.
    this.pending = new Map();
    this.timer = null;
    this.failure = null;
    this.wake = null;
  }

  // Uniform in 1..2K-1 (mean K), as the workload loop times its queries.
  #gap() {
    const k = this.latencyEvery;
    return k === 1 ? 1 : 1 + Math.floor(Math.random() * (2 * k - 1));
  }

  get #latencyFull() { return this.latencyCount >= this.latencies.length - this.concurrency; }

  #finished(timed, t0) {
    if (timed) this.latencies[this.latencyCount++] = (performance.now() - t0) * 1e6;
    this.iterations++;
    if (this.plant !== null) this.plant.tick();
  }

  #fail(error) {
    this.failure ??= error;
    this.#notify();
  }

  #notify() {
    const w = this.wake;
    this.wake = null;
    if (w) w();
  }

  // The watchdog: one timer at a time, due when the oldest iteration in
  // flight reaches its limit (Map order is start order).
  #arm() {
    if (this.timer !== null || this.pending.size === 0) return;
    const [, start] = this.pending.entries().next().value;
    this.timer = setTimeout(() => {
      this.timer = null;
      const oldest = this.pending.entries().next().value;
      if (!oldest) return;
      const [i, t] = oldest;
      if (performance.now() - t >= this.timeoutMs) {
        this.#fail(new TargetError(`iteration ${i} did not settle within ${this.timeoutMs} ms (--iteration-timeout)`));
      } else {
        this.#arm();
      }
    }, Math.max(1, start + this.timeoutMs - performance.now()));
  }

  /** Wait until an iteration settles (or the watchdog fires). */
  #settled() {
    return new Promise((resolve) => { this.wake = resolve; });
  }

  /** n iterations; returns how many ran (all settled).  Throws TargetError. */
  async runAsync(n) {
    let ran = 0;
    while (ran < n && this.failure === null && !this.#latencyFull) {
      const i = this.next++;
      ran++;
      const timed = --this.untilTimed === 0;
      if (timed) this.untilTimed = this.#gap();
      const t0 = performance.now();
      let r;
      try {
        r = this.fn.call(this.self, this.state, i);
      } catch (e) {
        this.#fail(new TargetError(`iteration ${i} threw: ${headline(e)}`, stackOf(e)));
        break;
      }
      if (!isThenable(r)) {
        this.#finished(timed, t0);
        continue;
      }
      this.pending.set(i, t0);
      this.#arm();
      Promise.resolve(r).then(() => {
        if (!this.pending.delete(i)) return; // after a failure: no longer counted
        this.#finished(timed, t0);
        this.#notify();
      }, (e) => {
        this.pending.delete(i);
        this.#fail(new TargetError(`iteration ${i} rejected: ${headline(e)}`, stackOf(e)));
      });
      while (this.pending.size >= this.concurrency && this.failure === null) await this.#settled();
    }
    while (this.pending.size > 0 && this.failure === null) await this.#settled();
    if (this.pending.size === 0 && this.timer !== null) {
      clearTimeout(this.timer); // nothing to watch: no timer keeps a finished thread alive
      this.timer = null;
    }
    if (this.failure !== null) {
      this.pending.clear();
      if (this.timer !== null) clearTimeout(this.timer);
      this.timer = null;
      throw this.failure;
    }
    return ran;
  }

  /** Hand the iterations and latencies since the last flush to the monitor. */
  flush(monitor, run) {
    if (this.iterations > 0) monitor.count(run, this.iterations, 0, 0, 0);
    if (this.latencyCount > 0) monitor.recordLatencies(run, this.latencies, this.latencyCount);
    const flushed = { queries: this.iterations, errors: 0 };
    this.iterations = 0;
    this.latencyCount = 0;
    return flushed;
  }
}
