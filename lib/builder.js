// builder.js -- THE query builder of the JS API, shared by every runtime
// (the Node addon, and the bun:ffi / Deno.dlopen / koffi bindings).
//
// It mirrors the C++ dalshim::Query (dal-shim/include/dalshim/query.hpp)
// and the methods of docs/protocol.md:
//
//   db.In('data').Find({ a: 1, b: { $gt: 2 } }).Sort({ b: -1 }).Limit(10).all()
//
// Plain ESM with no imports and no runtime APIs, so any JS engine can load it.
//
// Immutability: every builder method returns a NEW Query and leaves the one
// it was called on unchanged, so a base query can be reused:
//   const users = db.In('users');  users.Find({ id: 1 }).all(); users.Find({ id: 2 }).all();
// Argument values (filters, rows) are referenced, not deep-copied: changing a
// filter object after passing it changes the queries that hold it.
//
// Like the C++ builder, each method may appear once per query (a second call
// replaces the first) and commands are emitted in the canonical order below,
// whatever the call order, so equal queries encode to equal bytes.
//
// Terminal operations delegate to the `session` the query was created from
// (see the Session typedef below); each runtime binding provides one.

/** Canonical command order (docs/protocol.md, dalshim::Query::Method). */
export const METHOD_ORDER = Object.freeze([
  'In', 'Find', 'Fields', 'Join', 'Group', 'Sort', 'Limit', 'Offset',
  'Insert', 'Set', 'Delete', 'OnConflict', 'DoUpdate', 'DoNothing',
]);
const RANK = new Map(METHOD_ORDER.map((m, i) => [m, i]));

/** Default database file inside the handle's data directory. */
export const DEFAULT_DB = 'database.sqlite';

/** Methods that make a statement something other than a SELECT. */
const WRITE_METHODS = new Set(['Insert', 'Set', 'Delete']);

/**
 * @typedef {object} Session  what a runtime binding provides to terminal operations
 * @property {(q: Query) => object[]} all
 * @property {(q: Query) => Promise<object[]>} allAsync
 * @property {(q: Query) => Iterator<object>} iterate
 * @property {(q: Query) => AsyncIterator<object>} iterateAsync
 * @property {(q: Query) => {rowsAffected: number|bigint, lastInsertId: number|bigint}} run
 * @property {(q: Query) => Promise<{rowsAffected: number|bigint, lastInsertId: number|bigint}>} runAsync
 * @property {(q: Query, id: number|bigint) => Uint8Array} encode  the request bytes q sends with id
 * @property {(db: string, sql: string) => void} exec  administrative SQL text on database file db
 */

function arity(method, args, min, max) {
  if (args.length < min || args.length > max) {
    const want = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
    throw new TypeError(`${method}() takes ${want} argument${want === '1' ? '' : 's'}, got ${args.length}`);
  }
}

export class Query {
  #session;
  #db;
  #methods;  // method names, canonical order
  #args;     // #args[i] is the args array of #methods[i]

  /**
   * @param {Session|null} [session] where terminal operations run (null: build only)
   * @param {string} [db] database file name (default "database.sqlite")
   */
  constructor(session = null, db = DEFAULT_DB) {
    this.#session = session;
    this.#db = db;
    this.#methods = [];
    this.#args = [];
  }

  // A copy with `method` set to `args` (replacing an earlier call).
  #with(method, args) {
    const q = new Query(this.#session, this.#db);
    const rank = RANK.get(method);
    const methods = this.#methods.slice();
    const all = this.#args.slice();
    let i = 0;
    while (i < methods.length && RANK.get(methods[i]) < rank) i++;
    if (methods[i] === method) {
      all[i] = args;
    } else {
      methods.splice(i, 0, method);
      all.splice(i, 0, args);
    }
    q.#methods = methods;
    q.#args = all;
    return q;
  }

  /** The database file this query targets. */
  get db() { return this.#db; }
  /** Method names in canonical order (read-only view for bindings). */
  get methods() { return this.#methods; }
  /** Argument arrays, parallel to `methods` (read-only view for bindings). */
  get args() { return this.#args; }

  /** A copy that targets another database file in the same data directory. */
  Db(name) {
    arity('Db', arguments, 1, 1);
    const q = new Query(this.#session, name);
    q.#methods = this.#methods;  // never mutated in place, so sharing is safe
    q.#args = this.#args;
    return q;
  }

  In(table, alias) {
    arity('In', arguments, 1, 2);
    return this.#with('In', alias === undefined ? [table] : [table, alias]);
  }
  Find(filter) { arity('Find', arguments, 1, 1); return this.#with('Find', [filter]); }
  Fields(...fields) { arity('Fields', fields, 1, Infinity); return this.#with('Fields', fields); }
  /** Alias of Fields (docs/protocol.md); emits "Fields". */
  Select(...fields) { arity('Select', fields, 1, Infinity); return this.#with('Fields', fields); }
  Join(...specs) { arity('Join', specs, 1, Infinity); return this.#with('Join', specs); }
  Group(...keys) { arity('Group', keys, 1, Infinity); return this.#with('Group', keys); }
  Sort(spec) { arity('Sort', arguments, 1, 1); return this.#with('Sort', [spec]); }
  Limit(n) { arity('Limit', arguments, 1, 1); return this.#with('Limit', [n]); }
  Offset(n) { arity('Offset', arguments, 1, 1); return this.#with('Offset', [n]); }
  Insert(...rows) { arity('Insert', rows, 1, Infinity); return this.#with('Insert', rows); }
  Set(values) { arity('Set', arguments, 1, 1); return this.#with('Set', [values]); }
  Delete() { arity('Delete', arguments, 0, 0); return this.#with('Delete', []); }
  OnConflict(...columns) { return this.#with('OnConflict', columns); }
  DoUpdate(...columns) { arity('DoUpdate', columns, 1, Infinity); return this.#with('DoUpdate', columns); }
  DoNothing() { arity('DoNothing', arguments, 0, 0); return this.#with('DoNothing', []); }

  /** True if the statement is an INSERT, UPDATE or DELETE (or a Tx). */
  get isWrite() { return this.#methods.some((m) => WRITE_METHODS.has(m) || m === 'Tx'); }

  /** The commands array of docs/protocol.md: [{method, args}, ...]. */
  toCommands() {
    return this.#methods.map((method, i) => ({ method, args: this.#args[i] }));
  }

  /** The whole request object: {id, db, commands}. */
  request(id) {
    return { id, db: this.#db, commands: this.#methods.length ? this.toCommands() : [] };
  }

  // ---- terminal operations (delegated to the session) ----

  #need(kind) {
    if (this.#session === null) {
      throw new TypeError('this query has no database: build it with db.In(...) to run it');
    }
    if (this.#methods[0] === 'Tx') return this.#session;
    if (kind === 'rows' && this.isWrite) {
      throw new TypeError(`all()/iterate() read rows; this is a ${this.#verb()} statement: use run()`);
    }
    if (kind === 'exec' && !this.isWrite) {
      throw new TypeError('run() executes Insert/Set/Delete; this is a SELECT: use all() or iterate()');
    }
    return this.#session;
  }
  #verb() {
    if (this.#methods.includes('Insert')) return 'Insert';
    if (this.#methods.includes('Set')) return 'Set';
    return 'Delete';
  }

  /** Rows as plain objects keyed by column name. */
  all() { return this.#need('rows').all(this); }
  allAsync() {
    try { return this.#need('rows').allAsync(this); } catch (e) { return Promise.reject(e); }
  }
  /** An iterator of row objects (each object is built when it is reached). */
  iterate() { return this.#need('rows').iterate(this); }
  iterateAsync() { return this.#need('rows').iterateAsync(this); }
  /** Execute an Insert/Set/Delete: {rowsAffected, lastInsertId}. */
  run() { return this.#need('exec').run(this); }
  runAsync() {
    try { return this.#need('exec').runAsync(this); } catch (e) { return Promise.reject(e); }
  }

  /**
   * A transaction of write statements (each built with its own In), as one
   * request: {method: "Tx", args: [[command, ...], ...]}.  Used by the
   * sessions' db.Tx(...) / db.TxAsync(...).
   */
  static tx(session, db, queries) {
    if (queries.length === 0) throw new TypeError('Tx() needs at least one statement');
    const lists = queries.map((q, i) => {
      if (!(q instanceof Query)) throw new TypeError(`Tx() argument ${i} is not a Query`);
      if (q.#methods[0] !== 'In') throw new TypeError(`Tx() statement ${i} has no In(table)`);
      if (!q.isWrite) throw new TypeError(`Tx() statement ${i} is not an Insert, Set or Delete`);
      return q.toCommands();
    });
    const q = new Query(session, db);
    q.#methods = ['Tx'];
    q.#args = [lists];
    return q;
  }
}

/**
 * What every runtime's Database shares (the addon's in lib/database.js, the
 * FFI one in ffi/session.js): the database file new queries target, the
 * builder entry points, and the argument checks of encode() and exec().
 * Only the session -- the transport that runs a query's rows/exec in sync
 * and async forms, encodes requests and runs schema SQL -- differs.
 */
export class QueryRoot {
  #session;
  #dbName;

  /**
   * @param {Session} session  the runtime's transport
   * @param {string} [dbName]  database file new queries target
   */
  constructor(session, dbName = DEFAULT_DB) {
    this.#session = session;
    this.#dbName = dbName;
  }

  /** Database file (inside dir) that new queries target; default "database.sqlite". */
  get dbName() { return this.#dbName; }
  use(name) {
    if (typeof name !== 'string') throw new TypeError('use(name): name must be a string');
    this.#dbName = name;
    return this;
  }

  /** Start a query: db.In(table) or db.In(table, alias). */
  In(...args) { return new Query(this.#session, this.#dbName).In(...args); }

  /** Run Insert/Set/Delete queries as one transaction: {rowsAffected, lastInsertId}. */
  Tx(...queries) { return Query.tx(this.#session, this.#dbName, queries).run(); }
  TxAsync(...queries) {
    try { return Query.tx(this.#session, this.#dbName, queries).runAsync(); } catch (e) { return Promise.reject(e); }
  }

  /** The exact request bytes a query sends (MessagePack, docs/protocol.md). */
  encode(query, id = 0) { return this.#session.encode(checkQuery(query, 'encode(query, id)'), id); }

  /**
   * Administrative SQL text -- schemas, migrations; NEVER user input -- on
   * the database file of this Database (dbName, see use()): dal_exec through
   * the shim, sqlite3_exec() semantics (several statements, rows discarded,
   * the first failure stops the rest).  A SQLite failure is a DalError
   * DAL_E_DATABASE with SQLite's message.  Not a query: not in stats().
   */
  exec(sql) {
    if (typeof sql !== 'string') throw new TypeError('exec(sql): sql must be a string');
    this.#session.exec(this.#dbName, sql);
  }
}

/** query itself if it is a Query, else a TypeError naming the call. */
export function checkQuery(query, call) {
  if (!(query instanceof Query)) throw new TypeError(`${call}: query must be a Query`);
  return query;
}

/**
 * open()'s configuration, checked the same way on every runtime:
 * {dir, options, db, library} with options as the string dal_open takes.
 */
export function openArguments({ dir, options, db = DEFAULT_DB, library } = {}) {
  if (typeof dir !== 'string' || dir === '') throw new TypeError('open({dir}): dir must be a non-empty string');
  if (typeof db !== 'string') throw new TypeError('open({db}): db must be a string');
  if (library !== undefined && typeof library !== 'string') throw new TypeError('open({library}): library must be a string');
  return { dir, options: optionString(options), db, library };
}

/** open()'s options, as every runtime passes them to dal_open: "k=v;k=v" as
 *  given, or {k: v} joined in insertion order (undefined values skipped). */
function optionString(options) {
  if (options === undefined || options === null) return '';
  if (typeof options === 'string') return options;
  if (typeof options !== 'object') throw new TypeError('open(): options must be a string or an object');
  return Object.entries(options)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v}`)
    .join(';');
}
