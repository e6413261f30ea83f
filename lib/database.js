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
// file provides its session: the terminal operations, run by the addon,
// which encodes the JS values in C++ with the shim's MessagePack encoder and
// decodes the response into JS values.  See docs/api.md.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';

import { DEFAULT_DB, QueryRoot, checkQuery, openArguments } from './builder.js';
import { DalError } from './errors.js';

// Shapes of addon.execute(): how a response is returned.
const OBJECTS = 0; // rows as plain objects
const ARRAYS = 1;  // {columns, rows: [[...]]} (iterate() builds objects lazily)
const EXEC = 2;    // {rowsAffected, lastInsertId}

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

// A row object from column names and values.  '__proto__' (a valid column
// name) is defined as an own property instead of setting the prototype.
function rowObject(columns, values) {
  const o = {};
  for (let j = 0; j < columns.length; j++) {
    const c = columns[j];
    if (c === '__proto__') Object.defineProperty(o, c, { value: values[j], enumerable: true, writable: true, configurable: true });
    else o[c] = values[j];
  }
  return o;
}

function* rowsOf({ columns, rows }) {
  for (let i = 0; i < rows.length; i++) yield rowObject(columns, rows[i]);
}

async function* rowsOfAsync(promise) {
  yield* rowsOf(await promise);
}

// A query's request bytes, encoded by the addon (the shim's encoder).
const requestBytes = (q, id) => native.encodeRequest(id, q.db, q.methods, q.args);

// The session lib/builder.js delegates terminal operations, encode() and
// exec() to.
class NodeSession {
  #db;
  constructor(nativeDb) { this.#db = nativeDb; }
  all(q) { return this.#db.execute(OBJECTS, q.db, q.methods, q.args); }
  allAsync(q) { return this.#db.executeAsync(OBJECTS, q.db, q.methods, q.args); }
  // Executed now (errors throw here, not at the first next()); objects are
  // built one at a time as the iterator reaches them.
  iterate(q) { return rowsOf(this.#db.execute(ARRAYS, q.db, q.methods, q.args)); }
  iterateAsync(q) {
    const p = this.#db.executeAsync(ARRAYS, q.db, q.methods, q.args);
    p.catch(() => {}); // rejected on the first next(); never an unhandled rejection before it
    return rowsOfAsync(p);
  }
  run(q) { return this.#db.execute(EXEC, q.db, q.methods, q.args); }
  runAsync(q) { return this.#db.executeAsync(EXEC, q.db, q.methods, q.args); }
  encode(q, id) { return requestBytes(q, id); }
  exec(db, sql) { this.#db.exec(db, sql); }
}

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
