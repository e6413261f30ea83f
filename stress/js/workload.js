// workload.js -- the reference workload (../shared seed study, docs/protocol.md)
// and the query loops of the JS stress drivers, runtime-agnostic.
//
// Every iteration is a real round trip and every answer is checked, never
// sampled.  The loops run in chunks (a few thousand queries at most); the
// driver yields to the event loop between chunks, so N-API finalizers and
// worker messages get their turn (nodejs/node#26667).

// {id:9, db:"database.sqlite", commands:[{method:"In",args:["data"]},
//  {method:"Find",args:[{a:1,b:{$gt:2}}]}]} -- 87 bytes (tests/common/reference.h).
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
export const REFERENCE_ERROR = 'no such table: data';
export const REFERENCE_TABLE = 'data';

/** The reference query through the builder (a new filter object each time, as user code does). */
export function referenceQuery(db) {
  return db.In(REFERENCE_TABLE).Find({ a: 1, b: { $gt: 2 } });
}

// Buffer for queryInto: 4 KiB, reused, as dalstress's into mode.
const INTO_CAPACITY = 4096;
const RESP_LEN = REFERENCE_RESPONSE.length;
const FIRST = REFERENCE_RESPONSE[0];
const LAST = REFERENCE_RESPONSE[RESP_LEN - 1];

function sameAsReference(b) {
  for (let i = 0; i < RESP_LEN; i++) if (b[i] !== REFERENCE_RESPONSE[i]) return false;
  return true;
}

function hex(b, n) {
  return Array.from(b.subarray(0, Math.min(n, 48)), (x) => x.toString(16).padStart(2, '0')).join(' ');
}

/**
 * One loop: a database, an API, sync or async.  run(n) / runAsync(n) issue
 * n queries and return the number of failed calls or wrong answers; the
 * totals since the last take() are read with take().
 */
export class Workload {
  /**
   * @param {object} cfg
   * @param {object} cfg.db            an open Database (lib/database.js or an FFI session)
   * @param {'into'|'raw'|'builder'} cfg.api
   * @param {number} cfg.latencyEvery  time one query in K on average
   * @param {(msg: string) => void} cfg.onError  called for the first errors (verbatim)
   * @param {{tick(): void}|null} cfg.plant  a JS plant, ticked once per query
   */
  constructor({ db, api, latencyEvery, onError, plant = null }) {
    this.db = db;
    this.api = api;
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
    this.statsBase = api === 'builder' ? db.stats() : null;
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

  #timed(ms) {
    this.latencies[this.latencyCount++] = ms * 1e6;
    this.untilTimed = this.#gap();
  }

  /** Whether the latency batch is full (the caller flushes it to the monitor). */
  get latencyFull() { return this.latencyCount >= this.latencies.length - 1; }

  #checkInto(n) {
    const t = this.target;
    if (n === RESP_LEN && sameAsReference(t)) return;
    if (n > t.length) {
      this.db.takePending(new Uint8Array(n)); // nothing may stay pending
      this.#error(`wrong answer: ${n} bytes, more than the ${t.length}-byte buffer`);
    } else {
      this.#error(`wrong answer: ${n} bytes: ${hex(t, n)}`);
    }
  }

  #checkRaw(r) {
    if (r.length === RESP_LEN && sameAsReference(r)) return;
    this.#error(`wrong answer: ${r.length} bytes: ${hex(r, r.length)}`);
  }

  #checkBuilderError(e) {
    if (e && e.code === 'DALSHIM_E_SQL' && e.message === REFERENCE_ERROR) return;
    this.#error(`wrong answer: ${e && e.code ? `${e.code}: ` : ''}${e && e.message ? e.message : String(e)}`);
  }

  /** n queries, synchronously. */
  run(n) {
    const { db, plant } = this;
    const req = REFERENCE_REQUEST;
    const t = this.target;
    for (let i = 0; i < n; i++) {
      const timed = --this.untilTimed === 0;
      const t0 = timed ? performance.now() : 0;
      try {
        switch (this.api) {
          case 'into': {
            t[0] = ~FIRST & 0xff; // poison: a call that reports 34 bytes without writing them is caught
            t[RESP_LEN - 1] = ~LAST & 0xff;
            const len = db.queryInto(req, t);
            if (timed) this.#timed(performance.now() - t0);
            this.#checkInto(len);
            this.bytesIn += req.length;
            this.bytesOut += len;
            break;
          }
          case 'raw': {
            const r = db.queryRaw(req);
            if (timed) this.#timed(performance.now() - t0);
            this.#checkRaw(r);
            this.bytesIn += req.length;
            this.bytesOut += r.length;
            break;
          }
          default: {
            let rows;
            try {
              rows = referenceQuery(db).all();
            } catch (e) {
              if (timed) this.#timed(performance.now() - t0);
              this.#checkBuilderError(e);
              break;
            }
            if (timed) this.#timed(performance.now() - t0);
            this.#error(`wrong answer: ${rows.length} rows instead of "${REFERENCE_ERROR}"`);
          }
        }
      } catch (e) {
        if (timed) this.#timed(performance.now() - t0);
        this.#error(`call failed: ${e && e.code ? `${e.code}: ` : ''}${e && e.message ? e.message : String(e)}`);
      }
      this.queries++;
      if (plant !== null) plant.tick();
      if (this.latencyFull) return i + 1;
    }
    return n;
  }

  /** n queries, each awaited (the async form: libuv thread pool). */
  async runAsync(n) {
    const { db, plant } = this;
    const req = REFERENCE_REQUEST;
    const t = this.target;
    for (let i = 0; i < n; i++) {
      const timed = --this.untilTimed === 0;
      const t0 = timed ? performance.now() : 0;
      try {
        switch (this.api) {
          case 'into': {
            t[0] = ~FIRST & 0xff;
            t[RESP_LEN - 1] = ~LAST & 0xff;
            const len = await db.queryIntoAsync(req, t);
            if (timed) this.#timed(performance.now() - t0);
            this.#checkInto(len);
            this.bytesIn += req.length;
            this.bytesOut += len;
            break;
          }
          case 'raw': {
            const r = await db.queryRawAsync(req);
            if (timed) this.#timed(performance.now() - t0);
            this.#checkRaw(r);
            this.bytesIn += req.length;
            this.bytesOut += r.length;
            break;
          }
          default: {
            let rows;
            try {
              rows = await referenceQuery(db).allAsync();
            } catch (e) {
              if (timed) this.#timed(performance.now() - t0);
              this.#checkBuilderError(e);
              break;
            }
            if (timed) this.#timed(performance.now() - t0);
            this.#error(`wrong answer: ${rows.length} rows instead of "${REFERENCE_ERROR}"`);
          }
        }
      } catch (e) {
        if (timed) this.#timed(performance.now() - t0);
        this.#error(`call failed: ${e && e.code ? `${e.code}: ` : ''}${e && e.message ? e.message : String(e)}`);
      }
      this.queries++;
      if (plant !== null) plant.tick();
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
    if (this.api === 'builder') {
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
