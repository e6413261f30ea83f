// ffi/session.js -- the Database of the JS API (the same as lib/database.js's
// over the addon) on top of any raw binding of libdalshim.so: ffi/bun.js,
// ffi/deno.js or ffi/koffi.js.  The builder is lib/builder.js, the error
// class lib/errors.js; only the transport differs from the addon.
//
// The shapes are the addon's: FfiSession holds the handle, the request ids,
// the counters and a held pending response (as the addon's native Database
// does), and the user-visible Database only delegates to it.
//
// Ownership (dalshim.h):
//   - Builder queries and queryInto() use mode (b), dalshim_query_into, with
//     ONE response buffer per thread (per module instance: a worker has its
//     own), reused by every query: no allocation and no finalizer per query.
//     A response larger than it stays pending in the shim and is fetched
//     with dalshim_take_pending; the request is never sent twice.
//   - queryRaw() uses mode (a): dalshim_query, dalshim_buffer_size, a copy
//     into JS memory, then dalshim_free -- exactly once, in a finally.
//   - The async forms use dalshim_query_ex (mode (a) with the code returned
//     by the call): it runs on the runtime's pool thread, where the shim's
//     thread-local last error cannot be read afterwards.
//   - The data directory, options and library path reach C as
//     NUL-terminated buffers (cString).
import { QueryRoot, openArguments } from '../lib/builder.js';
import { DalError } from '../lib/errors.js';
import { CODES, cString } from './abi.js';
import { SqlFailure, encodeRequest, decodeResponse } from '../lib/codec.js';

// The reused response buffer starts at 64 KiB and grows (to a power of two)
// for a larger response up to 4 MiB; beyond that a response gets a buffer of
// its own, so one huge answer does not pin its size for the thread's life.
const INITIAL_CAPACITY = 64 * 1024;
const MAX_REUSED_CAPACITY = 4 * 1024 * 1024;
let scratch = new Uint8Array(INITIAL_CAPACITY);

// Request ids: 1, 2, ... wrapping below 2^32, so an id always encodes in at
// most 5 bytes and never takes the codec's wide-integer path.
const MAX_ID = 0xffffffff;

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

export function createSession(binding) {
  const { raw, memory } = binding;
  // Names come from the library (dalshim_code_name); each is asked once.
  const names = new Map();
  const codeName = (errno) => {
    let name = names.get(errno);
    if (name === undefined) names.set(errno, (name = raw.dalshim_code_name(errno)));
    return name;
  };
  // errno undefined: a failure with no code recorded (DalError's defaults).
  const makeError = (errno, message, requestId, sqliteCode) =>
    new DalError(message, { code: errno === undefined ? undefined : codeName(errno), errno, requestId, sqliteCode });
  // lib/codec.js names the code of an invalid response; its number is dalshim.h's.
  const responseError = (name, message, requestId) => makeError(CODES[name], message, requestId);
  // An SQL error's DalError is constructed by the API method the user called
  // (lib/codec.js SqlFailure says why); these are its fields.
  const sqlInfo = (f) => ({
    code: codeName(CODES.DALSHIM_E_SQL), errno: CODES.DALSHIM_E_SQL, requestId: f.requestId, sqliteCode: f.sqliteCode, sqlstate: f.sqlstate,
  });
  // The failure of the last call on this thread, as the shim recorded it.
  // returned: the code the failing call returned, if it returns one (it is
  // this call's; the thread's last code is the fallback for NULL returns).
  const lastError = (returned) => {
    const errno = returned ?? (raw.dalshim_last_error_code() || undefined);
    return makeError(errno, raw.dalshim_last_error() || `dalshim call failed (${errno})`);
  };
  const check = (n) => {
    if (n < 0) throw lastError(Number(n));
    return Number(n);
  };

  // Close handles of sessions collected without close() (never per query).
  // The session, not the Database, is registered: queries hold the session,
  // so a query kept after its Database can still run.
  const finalizer = new FinalizationRegistry((h) => raw.dalshim_close(h));

  // The request pointer for bytes: an empty Uint8Array may be passed as
  // NULL, which the shim reads as "req is NULL" (DAL_E_NULL); an empty
  // request is still a request, answered by the DAL's own decode error.  So
  // length 0 sends a real 1-byte buffer with length 0.
  const noBytes = new Uint8Array(1);
  const requestPtr = (bytes) => (bytes.length === 0 ? noBytes : bytes);

  // Response of mode (b) into the thread's buffer: its length.
  function queryReused(h, bytes) {
    let n = check(raw.dalshim_query_into(h, requestPtr(bytes), bytes.length, scratch, scratch.length));
    if (n > scratch.length) {
      const cap = n <= MAX_REUSED_CAPACITY ? 2 ** Math.ceil(Math.log2(n)) : n;
      const buf = new Uint8Array(cap);
      const m = check(raw.dalshim_take_pending(buf, buf.length));
      if (m !== n) throw makeError(CODES.DALSHIM_E_RESPONSE, `dalshim_take_pending returned ${m} bytes, expected ${n}`);
      if (cap <= MAX_REUSED_CAPACITY) scratch = buf;
      else return { buf, n };
    }
    return { buf: scratch, n };
  }

  // The shim's pending response of n bytes (after dalshim_query_into said n),
  // as a JS-owned copy.
  function takeFromShim(n) {
    const buf = new Uint8Array(n);
    const m = check(raw.dalshim_take_pending(buf, buf.length));
    if (m !== n) throw makeError(CODES.DALSHIM_E_RESPONSE, `dalshim_take_pending returned ${m} bytes, expected ${n}`);
    return buf;
  }

  // Mode (a): a JS-owned copy of the buffer; the native buffer is freed
  // exactly once whatever happens in between.
  function takeOwned(p) {
    try {
      const n = check(raw.dalshim_buffer_size(p));
      return memory.copyOut(p, n);
    } finally {
      raw.dalshim_free(p);
    }
  }

  // dalshim_query_ex's outcome: the response, or the failure it carries (its
  // code from code_out, its message in the buffer) thrown as a DalError.
  function outcome(p, code) {
    if (memory.isNull(p)) {
      // Only when the shim had no memory for the message (code_out is never NULL here).
      throw makeError(code, `${codeName(code)} (the shim could not allocate the message)`);
    }
    const bytes = takeOwned(p);
    if (code === CODES.DALSHIM_OK) return bytes;
    throw makeError(code, utf8Decoder.decode(bytes));
  }

  // The session of one handle: lib/builder.js's Session (terminal operations,
  // encode, exec) and the raw API, with the state the addon keeps in its
  // native Database.
  class FfiSession {
    #h;
    #open = true;
    #id = 0;
    #queries = 0;
    #requestBytes = 0;
    #responseBytes = 0;
    // A too-small queryInto's response, held at once, as the addon does: the
    // shim keeps ONE pending response per thread, which any later too-small
    // call (another Database, a builder query) would replace; and the newest
    // too-small response replaces an older one not taken (sync or async).
    #pendingCopy = null;

    constructor(h) {
      this.#h = h;
      finalizer.register(this, h, this);
    }

    #nextId() {
      this.#id = this.#id === MAX_ID ? 1 : this.#id + 1;
      return this.#id;
    }
    #count(bytesIn, bytesOut) {
      this.#queries++;
      this.#requestBytes += bytesIn;
      this.#responseBytes += bytesOut;
    }

    #execute(q, want) {
      const id = this.#nextId();
      const req = encodeRequest(q.request(id));
      const { buf, n } = queryReused(this.#h, req);
      this.#count(req.length, n);
      return decodeResponse(buf, n, id, want, responseError);
    }
    async #executeAsync(q, want) {
      const id = this.#nextId();
      const req = encodeRequest(q.request(id), true); // owned: it outlives this turn
      const resp = await this.queryRawAsync(req);
      const r = decodeResponse(resp, resp.length, id, want, responseError);
      if (r instanceof SqlFailure) throw new DalError(r.message, sqlInfo(r));
      return r;
    }
    // The synchronous forms throw an SQL error themselves (see sqlInfo).
    all(q) {
      const r = this.#execute(q, 'rows');
      if (r instanceof SqlFailure) throw new DalError(r.message, sqlInfo(r));
      return r;
    }
    allAsync(q) { return this.#executeAsync(q, 'rows'); }
    iterate(q) { return this.all(q)[Symbol.iterator](); }
    iterateAsync(q) {
      const p = this.allAsync(q);
      p.catch(() => {}); // rejected on the first next(), never unhandled before it
      return (async function* rows() { yield* await p; })();
    }
    run(q) {
      const r = this.#execute(q, 'exec');
      if (r instanceof SqlFailure) throw new DalError(r.message, sqlInfo(r));
      return r;
    }
    runAsync(q) { return this.#executeAsync(q, 'exec'); }
    encode(q, id) { return encodeRequest(q.request(id), true); }

    // Text and name go as UTF-8 with their lengths, so a NUL inside reaches
    // the DAL, which refuses it.  A closed handle: the shim's
    // DALSHIM_E_CLOSED, as for queries.
    exec(db, sql) {
      const name = utf8.encode(db);
      const text = utf8.encode(sql);
      check(raw.dalshim_exec(this.#h, requestPtr(name), name.length, requestPtr(text), text.length));
    }

    queryRaw(bytes) {
      const p = raw.dalshim_query(this.#h, requestPtr(bytes), bytes.length);
      if (memory.isNull(p)) throw lastError();
      const out = takeOwned(p);
      this.#count(bytes.length, out.length);
      return out;
    }

    async queryRawAsync(bytes) {
      // One code slot per call: several calls may be on the pool at once.
      // A closed handle is the shim's DALSHIM_E_CLOSED, as for queryRaw.
      const code = new Int32Array(1);
      const p = await raw.dalshim_query_ex_async(this.#h, requestPtr(bytes), bytes.length, code);
      const out = outcome(p, code[0]);
      this.#count(bytes.length, out.length);
      return out;
    }

    queryInto(bytes, target) {
      const n = check(raw.dalshim_query_into(this.#h, requestPtr(bytes), bytes.length, target, target.length));
      if (n > target.length) this.#pendingCopy = takeFromShim(n);
      this.#count(bytes.length, n);
      return n;
    }
    async queryIntoAsync(bytes, target) {
      // A pending response belongs to the calling thread, so this cannot run
      // on a pool: the copy from queryRawAsync is written into target.
      const r = await this.queryRawAsync(bytes);
      if (r.length <= target.length) target.set(r);
      else this.#pendingCopy = r; // the newest too-small response wins
      return r.length;
    }
    takePending(target) {
      // The addon's errors: a closed Database first, then nothing pending.
      if (!this.#open) throw makeError(CODES.DALSHIM_E_CLOSED, 'database is closed');
      const r = this.#pendingCopy;
      if (r === null) {
        throw makeError(CODES.DALSHIM_E_MISUSE, 'no pending response: takePending() follows a queryInto() whose target was too small');
      }
      if (r.length > target.length) return r.length;
      this.#pendingCopy = null;
      target.set(r);
      return r.length;
    }

    stats() {
      return { queries: this.#queries, requestBytes: this.#requestBytes, responseBytes: this.#responseBytes };
    }
    get isOpen() { return this.#open; }
    close() {
      if (!this.#open) return;
      this.#open = false;
      this.#pendingCopy = null; // a closed Database holds nothing
      finalizer.unregister(this);
      check(raw.dalshim_close(this.#h));
    }
  }

  // The user's object: lib/builder.js's QueryRoot over the session, and the
  // raw API delegated to it, as lib/database.js delegates to the addon.
  class Database extends QueryRoot {
    #s;

    /** Use open({dir, options}). */
    constructor(session, dbName) {
      super(session, dbName);
      this.#s = session;
    }

    /** Raw API: request bytes -> response bytes (a new Uint8Array, JS-owned). */
    queryRaw(bytes) { return this.#s.queryRaw(bytes); }
    /**
     * Raw API, async: dalshim_query_ex on the runtime's thread pool (Deno
     * nonblocking symbols, koffi's libuv pool); under Bun, whose FFI has no
     * asynchronous call, the call runs on the JS thread in a later microtask.
     */
    queryRawAsync(bytes) { return this.#s.queryRawAsync(bytes); }
    /**
     * Raw API: the response into `target`; returns its length n.  If
     * n > target.length nothing was written and the response waits for
     * takePending(bigger) -- the request was executed: never resend it.
     */
    queryInto(bytes, target) { return this.#s.queryInto(bytes, target); }
    queryIntoAsync(bytes, target) { return this.#s.queryIntoAsync(bytes, target); }
    takePending(target) { return this.#s.takePending(target); }

    /** {queries, requestBytes, responseBytes} through this Database. */
    stats() { return this.#s.stats(); }

    get isOpen() { return this.#s.isOpen; }
    /** Close the handle now (also done when it is collected).  A second close() does nothing. */
    close() { this.#s.close(); }
  }

  /**
   * Open a data directory (it must exist); the same arguments as the addon's
   * open(): {dir, options ("k=v;k=v" or {k: v}), db, library}.
   */
  function open(config) {
    const { dir, options, db, library } = openArguments(config);
    if (library !== undefined) check(raw.dalshim_load(cString(library, 'open({library})')));
    const h = check(raw.dalshim_open(cString(dir, 'open({dir})'), cString(options, 'open({options})')));
    return new Database(new FfiSession(h), db);
  }

  return { open, codeName, makeError, Database };
}
