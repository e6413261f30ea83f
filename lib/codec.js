// lib/codec.js -- MessagePack of the JS API on every runtime: requests
// (lib/request-encoder.js: exactly the bytes of the shim's C++ encoder,
// msgpack-c) and responses, decoded into row objects, exec results and SQL
// failures.  The Node addon's session (lib/database.js) and the FFI
// sessions (ffi/session.js) both send and read these bytes; only the call
// that carries them differs.
//
// Why in JS and not in C++ through Node-API: measured on Node 20 for the
// builder's queries (docs/benchmarks.md), walking the JS values with napi_*
// calls cost about twice what the JS encoder does, and building row objects
// with napi_set_property per field cost several times a generated object
// literal per column list (rowFactory below), which V8 gives one shape.
import { createRequire } from 'node:module';

export { encodeRequest, MAX_DEPTH } from './request-encoder.js';

// Responses as the addon's decoder read them:
//   useRecords false    -> plain maps (msgpackr's record extension is off,
//                          so 0x40..0x7f are integers);
//   copyBuffers         -> a decoded bin never aliases the reused response
//                          buffer (it is overwritten by the next query);
//   int64AsType 'auto'  -> int64/uint64 beyond 2^53 decode to BigInt.
// msgpackr is loaded at the first response decoded, not with this module:
// importing it (with msgpackr-extract, its native string decoder) costs a
// Node process about 5-7 MB of RSS, which a program that only sends bytes
// through queryInto, the stress drivers among them, never needs
// (docs/benchmarks.md, "RSS over the bare runtime").
let unpackr = null;
function responseDecoder() {
  if (unpackr === null) {
    const { Unpackr } = createRequire(import.meta.url)('msgpackr');
    unpackr = new Unpackr({
      useRecords: false,
      mapsAsObjects: true,
      int64AsType: 'auto',
      copyBuffers: true,
    });
  }
  return unpackr;
}

// ----------------------------------------------------------------- responses

// A response that breaks docs/protocol.md, or does not answer the request it
// was read for, is thrown as the caller's makeError('DALSHIM_E_RESPONSE',
// message, requestId): a DalError with the errno its runtime gets from the
// library, so this file holds no table of numbers.
const E_RESPONSE = 'DALSHIM_E_RESPONSE';

/**
 * An SQL error a response carries ("e", and "ec" when the request asked for
 * codes: SQLite's extended result code, an integer, or on PostgreSQL the
 * SQLSTATE, a 5-character string): RETURNED, not thrown, so that the session constructs
 * the DalError (code DALSHIM_E_SQL) in the API method the user called.  Its
 * stack then starts at the user's call instead of inside this file, and V8
 * walks four frames fewer to capture it: the stack capture is most of what
 * an SQL error costs (docs/benchmarks.md).
 */
export class SqlFailure {
  constructor(message, requestId, sqliteCode, sqlstate) {
    this.message = message;
    this.requestId = requestId;
    this.sqliteCode = sqliteCode;
    this.sqlstate = sqlstate;
  }
}

const SQLSTATE = /^[0-9A-Z]{5}$/;

/** The SqlFailure of an "e" response; its "ec" checked as dal-shim/src/response.cpp does. */
function sqlFailure(m, id, makeError) {
  const ec = m.ec;
  if (ec === undefined) return new SqlFailure(m.e, id);
  if (typeof ec === 'string' && SQLSTATE.test(ec)) return new SqlFailure(m.e, id, undefined, ec);
  if (Number.isInteger(ec) && ec >= -(2 ** 31) && ec < 2 ** 31) return new SqlFailure(m.e, id, ec);
  throw makeError(E_RESPONSE, 'invalid DAL response: "ec" is neither a 32-bit integer nor a SQLSTATE string', id);
}

// Row objects: one factory per column list, an object literal with the
// columns as its keys, so every row of a shape is built in one allocation
// with V8's fast literal path and all rows share one hidden class.  Column
// names are data from the database: each is a JSON string literal in the
// generated source, never code; "__proto__" is a computed key, which
// defines an own property (a plain "__proto__": would set the prototype).
// Duplicate names keep the last value, as assigning them in order does.
// Bounded: a program that makes column lists without end (ad-hoc aliases)
// costs one generation per new list, never unbounded memory.
const MAX_FACTORIES = 512;
const factories = new Map();

function rowFactory(columns) {
  const key = columns.length === 1 ? columns[0] : columns.join('\u0000');
  let make = factories.get(key);
  if (make === undefined) {
    const fields = columns.map((c, j) => `${c === '__proto__' ? '["__proto__"]' : JSON.stringify(c)}: v[${j}]`);
    make = new Function('v', `return {${fields.join(', ')}};`);
    if (factories.size >= MAX_FACTORIES) factories.clear();
    factories.set(key, make);
  }
  return make;
}

// The response in bytes[0..length), checked against docs/protocol.md and
// the request id it answers:
//   rows  -> {rows: [[value, ...], ...], make} (make(values) is the row object)
//   exec  -> {rowsAffected, lastInsertId}
//   "e"   -> a SqlFailure.
// Values: nil -> null, integers -> number (BigInt beyond 2^53), float ->
// number, str -> string, bin -> a copy (a Buffer when bytes is a Buffer).
export function readResponse(bytes, length, expectedId, makeError) {
  let m;
  try {
    m = responseDecoder().unpack(bytes, { start: 0, end: length });
  } catch (err) {
    throw makeError(E_RESPONSE, `invalid DAL response: malformed MessagePack: ${err.message}`, undefined);
  }
  if (m === null || typeof m !== 'object' || Array.isArray(m)) {
    throw makeError(E_RESPONSE, 'invalid DAL response: not a map', undefined);
  }
  const id = m.i;
  if (id !== expectedId) {
    throw makeError(E_RESPONSE, `invalid DAL response: response id ${id} does not answer request ${expectedId}`, id);
  }
  if (m.c !== undefined) {
    const c = m.c;
    const r = m.r;
    if (!Array.isArray(c) || !Array.isArray(r) || m.ra !== undefined || m.li !== undefined || m.e !== undefined) {
      throw makeError(E_RESPONSE, 'invalid DAL response: rows response needs exactly i, c, r', id);
    }
    const nc = c.length;
    for (let k = 0; k < r.length; k++) {
      const vals = r[k];
      if (!Array.isArray(vals) || vals.length !== nc) {
        throw makeError(E_RESPONSE, `invalid DAL response: row ${k} has ${vals?.length} values for ${nc} columns`, id);
      }
    }
    for (let j = 0; j < nc; j++) {
      if (typeof c[j] !== 'string') throw makeError(E_RESPONSE, 'invalid DAL response: column name is not a string', id);
    }
    return { rows: r, make: rowFactory(c) };
  }
  if (typeof m.e === 'string') return sqlFailure(m, id, makeError);
  const ra = m.ra;
  const li = m.li;
  const isInt = (x) => Number.isInteger(x) || typeof x === 'bigint';
  if (!isInt(ra) || !isInt(li)) {
    throw makeError(E_RESPONSE, 'invalid DAL response: exec response needs integer ra and li', id);
  }
  // Numbers, or BigInt beyond 2^53 (int64AsType 'auto'), as the addon documents.
  return { rowsAffected: ra, lastInsertId: li };
}

// What a terminal operation returns, or a SqlFailure: `want` is 'rows'
// (all(): the row objects) or 'exec' (run(): {rowsAffected, lastInsertId});
// a response of the other kind is DALSHIM_E_RESPONSE.
export function decodeResponse(bytes, length, expectedId, want, makeError) {
  if (want !== 'rows') return checkKind(readResponse(bytes, length, expectedId, makeError), 'exec', expectedId, makeError);
  const r = readRows(bytes, length, expectedId, makeError);
  if (r instanceof SqlFailure) return r;
  const { rows, make } = r;
  const out = new Array(rows.length);
  for (let k = 0; k < rows.length; k++) out[k] = make(rows[k]);
  return out;
}

/** A rows response read now: {rows, make} for rowObjects(), or a SqlFailure. */
export function readRows(bytes, length, expectedId, makeError) {
  return checkKind(readResponse(bytes, length, expectedId, makeError), 'rows', expectedId, makeError);
}

/** iterate(): the row objects of readRows()'s result, each built when it is reached. */
export function* rowObjects({ rows, make }) {
  for (let k = 0; k < rows.length; k++) yield make(rows[k]);
}

function checkKind(result, want, id, makeError) {
  if (result instanceof SqlFailure) return result;
  const isRows = result.make !== undefined;
  if ((want === 'rows') !== isRows) {
    const kind = (rows) => (rows ? 'rows {i,c,r}' : 'an exec result {i,ra,li}');
    throw makeError(E_RESPONSE, `invalid DAL response: expected ${kind(want === 'rows')}, got ${kind(isRows)}`, id);
  }
  return result;
}
