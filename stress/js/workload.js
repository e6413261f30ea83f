// workload.js -- the query loop of the JS stress drivers, runtime-agnostic:
// a workload (stress/workloads/*.json, read by workload-spec.js) sent
// through one API, sync or async, every answer checked, never sampled.
//
// The loops run in chunks (a few thousand queries at most); the driver
// yields to the event loop between chunks, so N-API finalizers and worker
// messages get their turn (nodejs/node#26667).
//
// One implementation of a query, split around the call: #prepare() (the
// request and the expected bytes of this query, written from the templates
// by workload-bytes.js; the builder's expanded values), #send() / #sendAsync()
// (the only part that differs between sync and async), #finish() (timing,
// check, counters).  The two loops around them are a few lines each: an
// `await` in the sync loop would cost a microtask turn per query.
import { WireQueries } from './workload-bytes.js';
import { builderDifference, firstDifference } from './workload-check.js';
import { Writer, decode, equalsEncoded } from './workload-msgpack.js';
import { ID_SLOT, WorkloadError } from './workload-spec.js';

// The reference request and answer, byte for byte (dal-shim/common/reference_workload.hpp);
// stress/workloads/reference.json expands to exactly these (unit-tested).
// {id:9, db:"database.sqlite", commands:[{method:"In",args:["data"]},
//  {method:"Find",args:[{a:1,b:{$gt:2}}]}]} -- 87 bytes.
export const REFERENCE_REQUEST = Uint8Array.from([
  0x83, 0xa2, 0x69, 0x64, 0x09, 0xa2, 0x64, 0x62, 0xaf, 0x64, 0x61, 0x74, 0x61, 0x62, 0x61,
  0x73, 0x65, 0x2e, 0x73, 0x71, 0x6c, 0x69, 0x74, 0x65, 0xa8, 0x63, 0x6f, 0x6d, 0x6d, 0x61,
  0x6e, 0x64, 0x73, 0x92, 0x82, 0xa6, 0x6d, 0x65, 0x74, 0x68, 0x6f, 0x64, 0xa2, 0x49, 0x6e,
  0xa4, 0x61, 0x72, 0x67, 0x73, 0x91, 0xa4, 0x64, 0x61, 0x74, 0x61, 0x82, 0xa6, 0x6d, 0x65,
  0x74, 0x68, 0x6f, 0x64, 0xa4, 0x46, 0x69, 0x6e, 0x64, 0xa4, 0x61, 0x72, 0x67, 0x73, 0x91,
  0x82, 0xa1, 0x61, 0x01, 0xa1, 0x62, 0x81, 0xa3, 0x24, 0x67, 0x74, 0x02,
]);
// {i:9, ra:0, li:0, e:"no such table: data"} -- 34 bytes.
export const REFERENCE_RESPONSE = Uint8Array.from([
  0x84, 0xa1, 0x69, 0x09, 0xa2, 0x72, 0x61, 0x00, 0xa2, 0x6c, 0x69, 0x00,
  0xa1, 0x65, 0xb3, 0x6e, 0x6f, 0x20, 0x73, 0x75, 0x63, 0x68, 0x20, 0x74,
  0x61, 0x62, 0x6c, 0x65, 0x3a, 0x20, 0x64, 0x61, 0x74, 0x61,
]);

// queryInto's buffer: 4 KiB, reused, as dalstress's into mode; a larger
// answer is taken with takePending into a bigger buffer, kept from then on.
const INTO_CAPACITY = 4096;

const INTO = 0;
const RAW = 1;
const BUILDER = 2;
const API = { into: INTO, raw: RAW, builder: BUILDER };

function hex(b, n) {
  return Array.from(b.subarray(0, Math.min(n, 48)), (x) => x.toString(16).padStart(2, '0')).join(' ');
}

const describeError = (e) => `${e && e.code ? `${e.code}: ` : ''}${e && e.message ? e.message : String(e)}`;

/** The request of an expanded query, {id, db, commands} in that key order (docs/workloads.md). */
const requestOf = (spec, q) => ({ id: q.id, db: spec.db, commands: q.commands });

/** null if `bytes[0..len)` are the expected answer `want` (an expanded expect), else why not. */
export function answerDifference(want, bytes, len) {
  if (equalsEncoded(bytes, len, want)) return null;
  let got;
  try {
    got = decode(bytes, len);
  } catch (e) {
    return `undecodable answer (${e.message}), ${len} bytes: ${hex(bytes, len)}`;
  }
  // Equal decoded values that equalsEncoded refused: an encoding the
  // protocol does not use (say, a float32 for a float64).
  return firstDifference(want, got) ?? `same values in another encoding: ${hex(bytes, len)}`;
}

// lib/builder.js calls from a command list: In(...) first, then each
// method with its args; a Tx is db.Tx of its statements.
function buildQuery(db, commands) {
  let q = db;
  for (let i = 0; i < commands.length; i++) {
    const { method, args } = commands[i];
    if (!Array.isArray(args)) throw new WorkloadError(`${method}: args expanded to ${typeof args}, not an array`);
    q = q[method](...args);
  }
  return q;
}

/**
 * Create the workload's tables (schema, through the DAL's exec) and send
 * its seed from this thread, checking every answer.  Before the monitor's
 * first sample; not counted as queries.  Throws WorkloadError on a wrong
 * answer, DalError if the DAL refuses.
 * @param {object} db    an open Database
 * @param {import('./workload-spec.js').WorkloadSpec} spec  loaded for the wire (not builder)
 */
export function setUpWorkload(db, spec) {
  if (spec.schema !== '') db.exec(spec.schema, spec.db);
  const request = new Writer();
  for (const q of spec.seedQueries()) {
    const resp = db.queryRaw(request.encode(requestOf(spec, q)));
    const why = answerDifference(q.expect, resp, resp.length);
    if (why !== null) throw new WorkloadError(`seed request ${q.id}: wrong answer: ${why}`);
  }
}

/**
 * One thread's loop: a database, a workload, an API, sync or async.
 * run(n) / runAsync(n) send n queries and return how many were sent; the
 * totals since the last flush() go to the monitor with flush().
 */
export class Workload {
  /**
   * @param {object} cfg
   * @param {object} cfg.db            an open Database (lib/database.js or an FFI session)
   * @param {import('./workload-spec.js').WorkloadSpec} cfg.spec  loaded with {builder} for --api builder
   * @param {'into'|'raw'|'builder'} cfg.api
   * @param {number} [cfg.thread]      t of docs/workloads.md (the worker index)
   * @param {number} [cfg.firstQuery]  n of the first query (worker 0 continues the main thread's)
   * @param {number} cfg.latencyEvery  time one query in K on average
   * @param {(msg: string) => void} cfg.onError  called for the first errors (verbatim)
   * @param {{tick(): void}|null} cfg.plant  a JS plant, ticked once per query
   */
  constructor({ db, spec, api, thread = 0, firstQuery = 0, latencyEvery, onError, plant = null }) {
    this.db = db;
    this.spec = spec;
    this.api = API[api];
    this.t = thread;
    this.n = firstQuery;
    this.latencyEvery = latencyEvery;
    this.onError = onError;
    this.plant = plant;
    this.target = new Uint8Array(INTO_CAPACITY);
    this.latencies = new Float64Array(4096);
    this.latencyCount = 0;
    this.untilTimed = this.#gap();
    this.queries = 0;
    this.bytesIn = 0;
    this.bytesOut = 0;
    this.errors = 0;
    this.reported = 0;
    this.statsBase = this.api === BUILDER ? db.stats() : null;
    this.env = new Array(spec.slots);
    // This query: its number and id; the builder's expansion; for into/raw
    // its request bytes and the expected answer's bytes in the DAL's forms
    // (workload-bytes.js: equal bytes are an equal answer; other bytes are
    // then walked as values, which decides and explains).
    this.queryN = 0;
    this.id = 0;
    this.query = null;
    this.wire = this.api === BUILDER ? null : new WireQueries(spec);
    this.request = null;
    // Answers right by value but not by bytes (another encoder than the
    // DAL's own): each was checked the slow way.  Tests read it.
    this.valueChecked = 0;
    this.t0 = 0;
    this.timed = false;
  }

  // Uniform in 1..2K-1 (mean K), so timing cannot lock onto a period of the DAL.
  #gap() {
    const k = this.latencyEvery;
    return k === 1 ? 1 : 1 + Math.floor(Math.random() * (2 * k - 1));
  }

  #error(msg) {
    this.errors++;
    if (this.reported < 10) {
      this.reported++;
      this.onError(msg);
    }
  }

  /** Whether the latency batch is full (the caller flushes it to the monitor). */
  get latencyFull() { return this.latencyCount >= this.latencies.length - 1; }

  // Expand this query (WorkloadError ends the run: a broken workload, not a
  // wrong answer), then start its clock if it is one of the timed ones.
  #prepare() {
    this.queryN = this.n;
    if (this.api === BUILDER) {
      this.query = this.spec.query(this.t, this.n, this.env);
      this.id = this.query.id;
    } else {
      const k = this.spec.bind(this.t, this.n, this.env);
      this.id = this.env[ID_SLOT];
      this.request = this.wire.request(k, this.env);
      this.wire.prepareAnswer(k, this.env);
    }
    this.n++;
    // Poison: a call that reports a length without writing the answer is
    // caught (no answer starts with 0xc1, a byte MessagePack never uses).
    if (this.api === INTO) {
      this.target[0] = 0xc1;
      // And one that stops short (the expected answer's last byte, flipped).
      const { answerLength, answerLast } = this.wire;
      if (answerLength <= this.target.length) this.target[answerLength - 1] = ~answerLast & 0xff;
    }
    this.timed = --this.untilTimed === 0;
    this.t0 = this.timed ? performance.now() : 0;
  }

  #send() {
    switch (this.api) {
      case INTO: return this.db.queryInto(this.request, this.target);
      case RAW: return this.db.queryRaw(this.request);
      default: return this.#builder(false);
    }
  }

  #sendAsync() {
    switch (this.api) {
      case INTO: return this.db.queryIntoAsync(this.request, this.target);
      case RAW: return this.db.queryRawAsync(this.request);
      default: return this.#builder(true);
    }
  }

  // The step's commands as builder calls; the terminal operation follows
  // from the statement: Tx, a write (run) or a read (all).
  #builder(async) {
    const db = this.db;
    const c = this.query.commands;
    if (c[0].method === 'Tx') {
      const statements = c[0].args.map((l) => buildQuery(db, l));
      return async ? db.TxAsync(...statements) : db.Tx(...statements);
    }
    const q = buildQuery(db, c);
    if (q.isWrite) return async ? q.runAsync() : q.run();
    return async ? q.allAsync() : q.all();
  }

  // The answer (result) or the call's exception (failed, with threw = true).
  #finish(result, failed, threw) {
    if (this.timed) {
      this.latencies[this.latencyCount++] = (performance.now() - this.t0) * 1e6;
      this.untilTimed = this.#gap();
    }
    if (this.api === BUILDER) {
      const q = this.query;
      // An SQL error is an answer here: builderDifference judges it.
      const why = builderDifference(q.step.expect.kind, q.expect, result, threw ? failed : undefined);
      if (why !== null) this.#error(`wrong answer to request ${q.id} (builder): ${why}`);
    } else if (threw) {
      this.#error(`call failed (request ${this.id}): ${describeError(failed)}`);
    } else {
      let bytes = result;
      let len = result.length;
      if (this.api === INTO) {
        len = result;
        if (len > this.target.length) {
          // Executed, and waiting in the shim: taken (never re-sent) into a bigger buffer, kept.
          this.target = new Uint8Array(2 ** Math.ceil(Math.log2(len)));
          this.db.takePending(this.target);
        }
        bytes = this.target;
      }
      this.bytesIn += this.request.length;
      this.bytesOut += len;
      if (!this.wire.matches(bytes, len)) {
        // Expanded only now, with an env of its own (the loop's is reused).
        const q = this.spec.query(this.t, this.queryN);
        const why = answerDifference(q.expect, bytes, len);
        if (why !== null) this.#error(`wrong answer to request ${q.id}: ${why}`);
        else this.valueChecked++;
      }
    }
    this.queries++;
    if (this.plant !== null) this.plant.tick();
  }

  /** n queries, synchronously. */
  run(n) {
    for (let i = 0; i < n; i++) {
      this.#prepare();
      let result;
      let failed;
      let threw = false;
      try {
        result = this.#send();
      } catch (e) {
        failed = e;
        threw = true;
      }
      this.#finish(result, failed, threw);
      if (this.latencyFull) return i + 1;
    }
    return n;
  }

  /** n queries, each awaited (the async form: a thread pool). */
  async runAsync(n) {
    for (let i = 0; i < n; i++) {
      this.#prepare();
      let result;
      let failed;
      let threw = false;
      try {
        result = await this.#sendAsync();
      } catch (e) {
        failed = e;
        threw = true;
      }
      this.#finish(result, failed, threw);
      if (this.latencyFull) return i + 1;
    }
    return n;
  }

  /**
   * Hand the totals since the last flush to the monitor: answered queries,
   * bytes (the builder's come from the database's own counters, since the
   * request id -- and so the size -- varies), errors, latencies.
   */
  flush(monitor, run) {
    if (this.api === BUILDER) {
      const s = this.db.stats();
      this.bytesIn = s.requestBytes - this.statsBase.requestBytes;
      this.bytesOut = s.responseBytes - this.statsBase.responseBytes;
      this.statsBase = s;
    }
    if (this.queries > 0 || this.errors > 0) {
      monitor.count(run, this.queries, this.bytesIn, this.bytesOut, this.errors);
    }
    if (this.latencyCount > 0) monitor.recordLatencies(run, this.latencies, this.latencyCount);
    const flushed = { queries: this.queries, errors: this.errors };
    this.queries = 0;
    this.bytesIn = 0;
    this.bytesOut = 0;
    this.errors = 0;
    this.latencyCount = 0;
    return flushed;
  }
}
