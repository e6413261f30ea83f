// lib/codec.js -- MessagePack of the JS API on every runtime: requests
// encoded with msgpackr to exactly the bytes the shim's C++ encoder
// (msgpack-c, dal-shim/src/codec.cpp; in Node, native.encodeRequest through
// addon/src/js_encoder.cpp) produces, responses decoded into row objects,
// exec results and DalErrors.  The Node addon (lib/database.js) and the FFI
// bindings (ffi/session.js) both send and read these bytes; only the call
// that carries them differs.
//
// Why in JS and not in C++ through Node-API: measured on Node 20 for the
// builder's queries (docs/benchmarks.md), walking the JS values with napi_*
// calls costs about twice what copy() + msgpackr do, and building row objects
// with napi_set_property per field costs several times a generated object
// literal per column list (rowFactory below), which V8 gives one shape.
//
// The one walk below (copy()) refuses what the addon refuses and builds the
// value msgpackr packs: the caller's objects are read once, by the walk, so
// a getter cannot give the check one value and the encoder another.  In the
// copy every integer is already in the form msgpack-c writes (msgpackr
// writes integers beyond 32 bits as float64 and every BigInt as 9 bytes,
// where msgpack-c writes every integer in its smallest form: non-negative
// values as uint*, negative as int*); promoteUint64() retags the one case
// left, and only runs when the walk saw it.
//
// Refused with a TypeError naming the path (e.g. "Find.args[0].b.$gt"), like
// the addon: functions, symbols, undefined inside arrays, cycles, nesting
// deeper than MAX_DEPTH, non-finite numbers, BigInts outside int64/uint64 and
// objects that are neither plain objects, arrays nor Uint8Array.  An object
// property whose value is undefined is skipped, as JSON.stringify does.
import { Packr, Unpackr, RESET_BUFFER_MODE } from 'msgpackr';

// Deepest nesting of containers accepted inside one command's args (the
// DAL's own limit for a whole request is 64 levels, docs/protocol.md).
export const MAX_DEPTH = 64;

const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;

// Exactly msgpack-c's output for everything the walk accepts:
//   useRecords false    -> plain maps, fixint up to 127 (msgpackr's record
//                          extension is off, so 0x40..0x7f are integers);
//   variableMapSize     -> smallest map header (fixmap/map16/map32);
//   (no skipValues)     -> not needed: the walk leaves undefined
//                          properties out of the copy;
//   useToJSON false     -> an object is never replaced by its toJSON();
//   copyBuffers         -> a decoded bin never aliases the reused response
//                          buffer (it is overwritten by the next query).
//   int64AsType 'auto'  -> int64/uint64 beyond 2^53 decode to BigInt.
const packr = new Packr({
  useRecords: false,
  variableMapSize: true,
  useToJSON: false,
  useFloat32: 0,
  encodeUndefinedAsNil: false,
});
const unpackr = new Unpackr({
  useRecords: false,
  mapsAsObjects: true,
  int64AsType: 'auto',
  copyBuffers: true,
});

// ------------------------------------------------- the walk (validate + copy)

function isNarrowInt(n) {
  return n >= -0x80000000 && n <= 0xffffffff;
}

function describe(v) {
  if (v === null) return 'null';
  if (typeof v !== 'object') return typeof v;
  const c = Object.getPrototypeOf(v)?.constructor;
  return c && c.name ? c.name : 'object';
}

// State of the current walk, reused by every call (the walk is
// synchronous): the containers being walked (a container met again among
// its own ancestors is a cycle; a value shared by two branches is not), the
// key or index leading to each value, and whether the copy holds a BigInt
// msgpackr writes as int64 where msgpack-c writes uint64 (promoteUint64).
// The path string is built only when a value is refused, so a valid request
// costs no string work.  A refusal leaves the stacks as they were at the
// throw; copyCommands() empties them before each walk.
const ancestors = [];
const keys = [];
let root = '';
let promote = false;

function refuse(why) {
  let path = root;
  for (const k of keys) path += typeof k === 'number' ? `[${k}]` : `.${k}`;
  throw new TypeError(`${path}: ${why}`);
}

// An integer as the value msgpackr writes in msgpack-c's form: BigInts
// inside 32 bits become numbers; safe integers outside 32 bits become
// BigInts (msgpackr: int64 0xd3, or uint64 0xcf at 2^63 and above).
function wideInt(b) {
  if (b >= -0x80000000n && b <= 0xffffffffn) return Number(b);
  if (b > 0n && b < 2n ** 63n) promote = true;
  return b;
}

// Validate v the way the addon does and return the value to pack: a copy
// in which every property of the caller's objects was read exactly once
// (a getter cannot hand the walk one value and the packer another),
// undefined properties are left out, and integers are in msgpack-c's form.
// Strings, booleans, null and Uint8Array bytes are used as they are.
function copy(v, depth) {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      if (!Number.isFinite(v)) refuse(`non-finite number ${v} cannot be encoded`);
      return Number.isSafeInteger(v) && !isNarrowInt(v) ? wideInt(BigInt(v)) : v;
    case 'bigint':
      if (v < INT64_MIN || v > UINT64_MAX) refuse(`BigInt ${v} is outside int64/uint64`);
      return wideInt(v);
    case 'undefined':
      return refuse('undefined cannot be encoded (inside an array)');
    case 'function':
    case 'symbol':
      return refuse(`a ${typeof v} cannot be encoded`);
    default:
      break;
  }
  if (v === null || v instanceof Uint8Array) return v;
  const isArray = Array.isArray(v);
  if (!isArray) {
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) {
      refuse(`${describe(v)} cannot be encoded (plain objects, arrays and Uint8Array only)`);
    }
  }
  if (depth >= MAX_DEPTH) refuse(`nesting deeper than ${MAX_DEPTH} levels`);
  if (ancestors.includes(v)) refuse('cycle (the value contains itself)');
  ancestors.push(v);
  let out;
  if (isArray) {
    out = [];
    const n = v.length;
    for (let i = 0; i < n; i++) {
      keys.push(i);
      out.push(copy(v[i], depth + 1));
      keys.pop();
    }
  } else {
    out = {};
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      const x = v[k];
      if (x === undefined) continue;
      keys.push(k);
      const c = copy(x, depth + 1);
      keys.pop();
      // '__proto__' is a valid key: an own property, not the prototype.
      if (k === '__proto__') Object.defineProperty(out, k, { value: c, enumerable: true, writable: true, configurable: true });
      else out[k] = c;
    }
  }
  ancestors.pop();
  return out;
}

// Validate a commands array ([{method, args}]) the way the addon does and
// return the copy to pack.
function copyCommands(commands) {
  if (!Array.isArray(commands)) throw new TypeError(`commands: expected an array, got ${describe(commands)}`);
  const out = [];
  for (let i = 0; i < commands.length; i++) {
    const c = commands[i];
    const method = c?.method;
    const args = c?.args;
    if (c === null || typeof c !== 'object' || typeof method !== 'string' || !Array.isArray(args)) {
      throw new TypeError(`commands[${i}]: expected {method: string, args: array}`);
    }
    ancestors.length = 0;
    keys.length = 0;
    root = `${method}.args`;
    out.push({ method, args: copy(args, 0) });
  }
  return out;
}

// msgpack-c writes a non-negative integer as uint, msgpackr writes a BigInt
// below 2^63 as int64 (0xd3).  In a copy, the only 0xd3 values with a
// non-negative payload are such BigInts; their 8 payload bytes are the same
// as a uint64's, so only the type byte changes.  Walks the MessagePack
// structure so that string and bin payloads are never touched.
function promoteUint64(b) {
  let p = 0;
  const u16 = () => (b[p] << 8) | b[p + 1];
  const u32 = () => ((b[p] << 24) >>> 0) + (b[p + 1] << 16) + (b[p + 2] << 8) + b[p + 3];
  let pending = 1; // values still to visit
  while (pending > 0) {
    pending--;
    const t = b[p++];
    if (t <= 0x7f || t >= 0xe0 || t === 0xc0 || t === 0xc2 || t === 0xc3) continue;
    if (t >= 0x80 && t <= 0x8f) { pending += 2 * (t & 0x0f); continue; }
    if (t >= 0x90 && t <= 0x9f) { pending += t & 0x0f; continue; }
    if (t >= 0xa0 && t <= 0xbf) { p += t & 0x1f; continue; }
    switch (t) {
      case 0xc4: case 0xd9: p += 1 + b[p]; break;
      case 0xc5: case 0xda: p += 2 + u16(); break;
      case 0xc6: case 0xdb: p += 4 + u32(); break;
      case 0xcc: case 0xd0: p += 1; break;
      case 0xcd: case 0xd1: p += 2; break;
      case 0xce: case 0xd2: case 0xca: p += 4; break;
      case 0xcf: case 0xcb: p += 8; break;
      case 0xd3:
        if (b[p] < 0x80) b[p - 1] = 0xcf;
        p += 8;
        break;
      case 0xdc: pending += u16(); p += 2; break;
      case 0xdd: pending += u32(); p += 4; break;
      case 0xde: pending += 2 * u16(); p += 2; break;
      case 0xdf: pending += 2 * u32(); p += 4; break;
      default: throw new Error(`codec: unexpected MessagePack type 0x${t.toString(16)} in an encoded request`);
    }
  }
}

// ------------------------------------------------------------------ requests

// Encode a request {id, db, commands} (the shape of Query#request(id)).
// The result is a view of msgpackr's reused buffer: valid until the next
// encodeRequest call, which is all a synchronous FFI call needs.  Pass
// keep=true for bytes that must outlive that (tests, queryRaw callers).
export function encodeRequest(request, keep = false) {
  if (request === null || typeof request !== 'object') throw new TypeError('request: expected {id, db, commands}');
  const { id, db, commands } = request;
  if (!Number.isSafeInteger(id) || id < 0) {
    if (typeof id !== 'bigint' || id < 0n || id > 2n ** 63n - 1n) {
      throw new TypeError(`id: expected an integer 0 .. 2^63-1, got ${describe(id)} ${String(id)}`);
    }
  }
  if (typeof db !== 'string') throw new TypeError(`db: expected a string, got ${describe(db)}`);
  promote = false;
  // Key order id, db, commands as the addon writes them, whatever the caller's.
  const value = { id: typeof id === 'number' && isNarrowInt(id) ? id : wideInt(BigInt(id)), db, commands: copyCommands(commands) };
  const bytes = packr.pack(value, keep ? 0 : RESET_BUFFER_MODE);
  if (promote) promoteUint64(bytes);
  return keep ? new Uint8Array(bytes) : bytes;
}

// ----------------------------------------------------------------- responses

// A response that breaks docs/protocol.md, or does not answer the request it
// was read for, is thrown as the caller's makeError('DALSHIM_E_RESPONSE',
// message, requestId): a DalError with the errno its runtime gets from the
// library, so this file holds no table of numbers.
const E_RESPONSE = 'DALSHIM_E_RESPONSE';

/**
 * An SQL error a response carries ("e", and "ec": SQLite's extended result
 * code when present): RETURNED, not thrown, so that the session constructs
 * the DalError (code DALSHIM_E_SQL) in the API method the user called.  Its
 * stack then starts at the user's call instead of inside this file, and V8
 * walks four frames fewer to capture it: the stack capture is most of what
 * an SQL error costs (docs/benchmarks.md).
 */
export class SqlFailure {
  constructor(message, requestId, sqliteCode) {
    this.message = message;
    this.requestId = requestId;
    this.sqliteCode = sqliteCode;
  }
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
    m = unpackr.unpack(bytes, { start: 0, end: length });
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
  if (typeof m.e === 'string') return new SqlFailure(m.e, id, m.ec);
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
