// Type declarations of the dalkit JS API (docs/api.md).

/** A value the encoder accepts (docs/api.md, "Values"). */
export type Value =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | Value[]
  | { [key: string]: Value | undefined };

/** A cell as decoded: integers beyond 2^53 are bigint, BLOBs are Buffers. */
export type Cell = null | boolean | number | bigint | string | Buffer | Cell[] | { [key: string]: Cell };
export type Row = Record<string, Cell>;

export interface ExecResult {
  /** Rows changed (for Tx: the sum over its statements). bigint beyond 2^53. */
  rowsAffected: number | bigint;
  /** The last insert rowid (for Tx: of the last statement). bigint beyond 2^53. */
  lastInsertId: number | bigint;
}

export declare class DalError extends Error {
  constructor(message: string, info?: { code?: string; errno?: number; requestId?: number | bigint; sqliteCode?: number; sqlstate?: string });
  /** "DAL_E_REQUEST", "DALSHIM_E_CLOSED", "DALSHIM_E_SQL" (an SQLite error carried in the response), ... */
  code: string;
  /** The code's number (negative; dal.h / dalshim.h). */
  errno: number;
  /** The id of the request the error answers (SQL errors). */
  requestId?: number | bigint;
  /** SQLite's extended result code, when the response carried one. */
  sqliteCode?: number;
  /** On PostgreSQL: the SQLSTATE ("23505" unique violation), when the response carried one. */
  sqlstate?: string;
}

export declare const METHOD_ORDER: readonly string[];
export declare const DEFAULT_DB: string;

export interface Session {
  all(q: Query): Row[];
  allAsync(q: Query): Promise<Row[]>;
  iterate(q: Query): IterableIterator<Row>;
  iterateAsync(q: Query): AsyncIterableIterator<Row>;
  run(q: Query): ExecResult;
  runAsync(q: Query): Promise<ExecResult>;
  /** The request bytes of q with request id `id` (Database#encode checks its arguments first). */
  encode(q: Query, id: number | bigint): Uint8Array;
  /** Administrative SQL text on database file `db` (Database#exec checks sql is a string first). */
  exec(db: string, sql: string): void;
}

/** An immutable query: every builder method returns a new Query. */
export declare class Query {
  constructor(session?: Session | null, db?: string);
  readonly db: string;
  readonly methods: readonly string[];
  readonly args: readonly (readonly Value[])[];
  readonly isWrite: boolean;

  Db(name: string): Query;
  In(table: string, alias?: string): Query;
  Find(filter: Record<string, Value | undefined>): Query;
  Fields(...fields: string[]): Query;
  Select(...fields: string[]): Query;
  Join(...specs: Array<{ $for: string; $do?: Record<string, Value | undefined>; $as?: 'inner' | 'left' | 'cross' | 'full outer' }>): Query;
  Group(...keys: string[]): Query;
  Sort(spec: Record<string, 1 | -1 | 'asc' | 'desc' | 'ASC' | 'DESC'>): Query;
  Limit(n: number | bigint): Query;
  Offset(n: number | bigint): Query;
  Insert(...rows: Array<Record<string, Value | undefined>>): Query;
  Set(values: Record<string, Value | undefined>): Query;
  Delete(): Query;
  OnConflict(...columns: string[]): Query;
  DoUpdate(...columns: string[]): Query;
  DoNothing(): Query;

  toCommands(): Array<{ method: string; args: Value[] }>;
  request(id: number | bigint): { id: number | bigint; db: string; commands: Array<{ method: string; args: Value[] }> };

  all(): Row[];
  allAsync(): Promise<Row[]>;
  iterate(): IterableIterator<Row>;
  iterateAsync(): AsyncIterableIterator<Row>;
  run(): ExecResult;
  runAsync(): Promise<ExecResult>;

  static tx(session: Session | null, db: string, queries: Query[]): Query;
}

export interface OpenConfig {
  /** The data directory (must exist); database files are created inside it. */
  dir: string;
  /** dal.h open options: "k=v;k=v" or {k: v}. */
  options?: string | Record<string, string | number | boolean | undefined>;
  /** Default database file name (default "database.sqlite"). */
  db?: string;
  /** Path of the DAL library (default: $DAL_LIBRARY, else libdal.so beside dalkit.node). */
  library?: string;
}

export declare class Database {
  private constructor();
  readonly dbName: string;
  readonly isOpen: boolean;
  use(name: string): this;
  In(table: string, alias?: string): Query;
  Tx(...queries: Query[]): ExecResult;
  TxAsync(...queries: Query[]): Promise<ExecResult>;
  encode(query: Query, id?: number | bigint): Buffer;
  queryRaw(bytes: Uint8Array): Buffer;
  queryRawAsync(bytes: Uint8Array): Promise<Buffer>;
  queryInto(bytes: Uint8Array, target: Uint8Array): number;
  queryIntoAsync(bytes: Uint8Array, target: Uint8Array): Promise<number>;
  takePending(target: Uint8Array): number;
  /**
   * Administrative SQL text (schemas, migrations; never user input) on this
   * Database's file (dbName): sqlite3_exec() semantics.  Throws DalError
   * (DAL_E_DATABASE with SQLite's message; DALSHIM_E_CLOSED when closed).
   */
  exec(sql: string): void;
  stats(): { queries: number; requestBytes: number; responseBytes: number };
  close(): void;
}

export declare function open(config: OpenConfig): Database;
export declare function load(path?: string): { path: string; version: number; versionString: string };
export declare function encodeRequest(query: Query, id?: number | bigint): Buffer;
export declare function codeName(errno: number): string;
export declare function addonPath(): string;
/** The addon's module object (raw access for tests, the stress driver and benchmarks). */
export declare const native: any;

// ---------------------------------------------------------------------------
// --target modules: your own code under the stress driver (docs/targets.md).
//
//   // my-case.mjs
//   /** @type {import('dalkit').Target<State>} */
//   export default { name, async setup(ctx) {...}, iteration(state, i) {...}, async teardown(state) {...} };
//
//   npm run stress -- --target my-case.mjs --iterations 1000000
// ---------------------------------------------------------------------------

/** What setup() is given: one per thread that runs the target. */
export interface TargetContext {
  /** A directory of this thread's own, empty at setup; removed after the run (unless --db-dir). */
  readonly dir: string;
  /** The runtime running the driver. */
  readonly runtime: 'node' | 'bun' | 'deno';
  /** 0 on the main thread; with --workers N, worker i's index 0..N-1. */
  readonly workerIndex: number;
  /** --workers N (0: the main thread runs every iteration). */
  readonly workers: number;
  /** The iterations this thread will run (its share of --iterations). */
  readonly iterations: number;
  /** --target-option KEY=VALUE, as strings. */
  readonly options: Readonly<Record<string, string>>;
}

/**
 * A target module's default export (or its named exports).  The driver
 * calls setup once per thread before the monitor starts, iteration
 * --iterations times (i = 0, 1, ... on each thread), and teardown after the
 * last sample.  A throw, a rejection, or a Promise that does not settle
 * within --iteration-timeout ends the run with exit code 2, naming the
 * iteration.
 */
export interface Target<State = unknown> {
  /** Shown in the report's mode and on stderr; default: the file name. */
  name?: string;
  setup?(ctx: TargetContext): State | Promise<State>;
  /** One unit of work.  A returned Promise is awaited (--concurrency K of them at once). */
  iteration(state: State, i: number): unknown;
  teardown?(state: State): unknown;
}
