// database.js -- the Node.js API over the addon (build/out/dalkit.node).
//
//   import { open } from 'dalkit';
//   const db = open({ dir: '/tmp/data' });
//   db.In('data').Insert({ a: 1, b: 3 }).run();            // {rowsAffected: 1, lastInsertId: 1}
//   db.In('data').Find({ a: 1, b: { $gt: 2 } }).all();     // [{a: 1, b: 3}]
//   await db.In('data').Find({}).allAsync();               // on the libuv thread pool
//   db.close();
//
// The query builder is lib/builder.js (shared with the FFI bindings); this
// file provides its session: the terminal operations, whose requests and
// responses lib/codec.js encodes and decodes in JS (as on the FFI paths),
// carried by the addon's queryInto / queryRawAsync.  See docs/api.md.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';

import { DEFAULT_DB, QueryRoot, checkQuery, openArguments } from './builder.js';
import { SqlFailure, decodeResponse, encodeRequest as encodeBytes, readRows, rowObjects } from './codec.js';
import { DalError } from './errors.js';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Where dalkit.node is: $DALKIT_ADDON, else build/out/dalkit.node in this
 * checkout (where the CMake build puts it, beside libdal.so).
 */
export function addonPath() {
  const fromEnv = process.env.DALKIT_ADDON;
  if (fromEnv) return resolve(fromEnv);
  return join(here, '..', 'build', 'out', 'dalkit.node');
}

function loadAddon() {
  const path = addonPath();
  if (!existsSync(path)) {
    throw new Error(`dalkit: the addon is not built (${path} is missing): run \`scripts/setup.sh\` ` +
      'or set DALKIT_ADDON to a built dalkit.node');
  }
  const native = createRequire(import.meta.url)(path);
  native.init(DalError); // per environment: every worker_thread loads its own instance
  return native;
}

/** The addon's module object (raw access for tests, the stress driver and benchmarks). */
export const native = loadAddon();

// A response's errors are DalErrors constructed here in JS: one Error, one
// stack capture, no Node-API call to build it.  An invalid response is
// thrown by lib/codec.js; an SQL error comes back as a SqlFailure and is
// thrown by the API method the user called (its stack starts there).
const errnos = native.codes;
const makeError = (code, message, requestId) => new DalError(message, { code, errno: errnos[code], requestId });
const sqlInfo = (f) => ({ code: 'DALSHIM_E_SQL', errno: errnos.DALSHIM_E_SQL, requestId: f.requestId, sqliteCode: f.sqliteCode, sqlstate: f.sqlstate });

// The response buffer of synchronous builder queries: one per thread (per
// module instance: a worker has its own), reused by every query.  A Buffer,
// so that BLOB cells decode to Buffers (copies; docs/api.md).  A response
// larger than it is taken into a buffer of its own (takePending): the
// request is never sent twice.
let scratch = Buffer.alloc(64 * 1024);

// Request ids: 1, 2, ... wrapping below 2^32, so an id always encodes in at
// most 5 bytes and is compared as a number.
const MAX_ID = 0xffffffff;

// The session lib/builder.js delegates terminal operations, encode() and
// exec() to.
class NodeSession {
  #db;
  #id = 0;
  constructor(nativeDb) { this.#db = nativeDb; }

  #nextId() {
    this.#id = this.#id === MAX_ID ? 1 : this.#id + 1;
    return this.#id;
  }
  // The response of q, read from the buffer it is in: read(bytes, n, id).
  #query(q, read) {
    const id = this.#nextId();
    const req = encodeBytes(q.request(id)); // a reused buffer: valid until the next encode
    const n = this.#db.queryInto(req, scratch);
    if (n <= scratch.length) return read(scratch, n, id);
    const own = Buffer.alloc(n);
    this.#db.takePending(own);
    return read(own, n, id);
  }
  async #queryAsync(q, read) {
    const id = this.#nextId();
    const resp = await this.#db.queryRawAsync(encodeBytes(q.request(id), true));
    const r = read(resp, resp.length, id);
    if (r instanceof SqlFailure) throw new DalError(r.message, sqlInfo(r));
    return r;
  }

  // The synchronous forms throw an SQL error themselves (see sqlInfo).
  all(q) {
    const r = this.#query(q, readObjects);
    if (r instanceof SqlFailure) throw new DalError(r.message, sqlInfo(r));
    return r;
  }
  allAsync(q) { return this.#queryAsync(q, readObjects); }
  // Executed now (errors throw here, not at the first next()); objects are
  // built one at a time as the iterator reaches them.
  iterate(q) {
    const r = this.#query(q, readRowsOf);
    if (r instanceof SqlFailure) throw new DalError(r.message, sqlInfo(r));
    return rowObjects(r);
  }
  iterateAsync(q) {
    const p = this.#queryAsync(q, readRowsOf);
    p.catch(() => {}); // rejected on the first next(); never an unhandled rejection before it
    return (async function* rows() { yield* rowObjects(await p); })();
  }
  run(q) {
    const r = this.#query(q, readExec);
    if (r instanceof SqlFailure) throw new DalError(r.message, sqlInfo(r));
    return r;
  }
  runAsync(q) { return this.#queryAsync(q, readExec); }
  encode(q, id) { return requestBytes(q, id); }
  exec(db, sql) { this.#db.exec(db, sql); }
}

const readObjects = (bytes, n, id) => decodeResponse(bytes, n, id, 'rows', makeError);
const readExec = (bytes, n, id) => decodeResponse(bytes, n, id, 'exec', makeError);
const readRowsOf = (bytes, n, id) => readRows(bytes, n, id, makeError);

// A query's request bytes, as the session sends them: a Buffer the caller keeps.
const requestBytes = (q, id) => Buffer.from(encodeBytes(q.request(id)));

export class Database extends QueryRoot {
  #native;

  /** Use open({dir, options}). */
  constructor(nativeDb, dbName = DEFAULT_DB) {
    super(new NodeSession(nativeDb), dbName);
    this.#native = nativeDb;
  }

  /** Raw API: request bytes -> response bytes (a new Buffer, JS-owned). */
  queryRaw(bytes) { return this.#native.queryRaw(bytes); }
  queryRawAsync(bytes) { return this.#native.queryRawAsync(bytes); }
  /**
   * Raw API: the response into `target`; returns its length n.  If
   * n > target.length nothing was written and the response waits for
   * takePending(bigger) -- the request was executed: never resend it.
   */
  queryInto(bytes, target) { return this.#native.queryInto(bytes, target); }
  queryIntoAsync(bytes, target) { return this.#native.queryIntoAsync(bytes, target); }
  takePending(target) { return this.#native.takePending(target); }

  /** {queries, requestBytes, responseBytes} through this Database. */
  stats() { return this.#native.counters(); }

  get isOpen() { return this.#native.isOpen; }
  /** Close the handle now (also done when the object is collected).  A second close() does nothing. */
  close() { this.#native.close(); }
}

/**
 * Open a data directory (it must exist).
 * @param {object} cfg
 * @param {string} cfg.dir      data directory; database files are created inside it
 * @param {string|object} [cfg.options]  dal.h open options, "k=v;k=v" or {k: v}
 * @param {string} [cfg.db]     default database file name (default "database.sqlite")
 * @param {string} [cfg.library] path of the DAL library to load (default: $DAL_LIBRARY, else libdal.so beside dalkit.node)
 */
export function open(cfg) {
  const { dir, options, db, library } = openArguments(cfg);
  if (library !== undefined) native.load(library);
  return new Database(new native.Database(dir, options), db);
}

/** Load the DAL now (optional: open() loads it).  Returns {path, version, versionString}. */
export function load(path) { return native.load(path); }

/** The request bytes of a query (the same as db.encode). */
export function encodeRequest(query, id = 0) {
  return requestBytes(checkQuery(query, 'encodeRequest(query, id)'), id);
}

/** The name of a shim/DAL code: codeName(-24) === 'DALSHIM_E_CLOSED'. */
export function codeName(errno) { return native.codeName(errno); }
