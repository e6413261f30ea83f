// workload-check.js -- is an answer the one the workload expects?  And if
// not, the first place where it differs, as a path a person can read:
//   r[3][4]: expected float64 8.75, got integer 8
//
// Two forms of answer (docs/workloads.md, "Checking an answer"):
//   - the response map, decoded by workload-msgpack.js's decode() (Real for
//     floats, MsgMap for maps) -- --api into|raw, and seeds;
//   - what lib/builder.js returns -- --api builder: rows as objects keyed by
//     column, {rowsAffected, lastInsertId}, or a thrown DalError.
// The loops compare bytes first (cheap) and call these only to explain a
// difference, or (builder) to check every answer.
import { MsgMap, Real } from './workload-msgpack.js';

const SHOWN = 60; // longest value text in a message

function show(v) {
  if (v === undefined) return 'nothing';
  if (v === null) return 'nil';
  if (v instanceof Real) return `float64 ${v.value}`;
  if (typeof v === 'number') return Number.isInteger(v) ? `integer ${v}` : `float64 ${v}`;
  if (typeof v === 'bigint') return `integer ${v}`;
  if (typeof v === 'string') {
    const s = JSON.stringify(v);
    return `string ${s.length > SHOWN ? `${s.slice(0, SHOWN)}...` : s}`;
  }
  if (v instanceof Uint8Array) return `bin of ${v.length} bytes`;
  if (Array.isArray(v)) return `array of ${v.length}`;
  if (v instanceof MsgMap) return `map {${v.entries.map(([k]) => String(k)).join(', ')}}`;
  if (typeof v === 'object') return `map {${Object.keys(v).join(', ')}}`;
  return `${typeof v} ${String(v)}`;
}

const join = (path, key) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key);
const isFloat = (v) => v instanceof Real || (typeof v === 'number' && !Number.isInteger(v));
const floatOf = (v) => (v instanceof Real ? v.value : v);

/**
 * The first difference between an expected value (expanded template: plain
 * objects, numbers, Real) and a decoded answer (MsgMap, Real, ...), as
 * "path: expected X, got Y"; null if they are equal.  Floats compare as
 * float64 values (Object.is: -0 differs from 0, NaN equals NaN), integers
 * as integers, and one is never the other.
 */
export function firstDifference(want, got, path = '') {
  const where = path || '(answer)';
  const differ = () => `${where}: expected ${show(want)}, got ${show(got)}`;
  if (isFloat(want)) return isFloat(got) && Object.is(floatOf(want), floatOf(got)) ? null : differ();
  if (want === null || typeof want !== 'object') {
    if (isFloat(got)) return differ();
    // An integer beyond 2^53 decodes to BigInt; the expander never makes one.
    return want === got ? null : differ();
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(got)) return differ();
    for (let i = 0; i < want.length && i < got.length; i++) {
      const d = firstDifference(want[i], got[i], join(path, i));
      if (d !== null) return d;
    }
    if (want.length !== got.length) return `${where}: expected ${want.length} items, got ${got.length}`;
    return null;
  }
  if (!(got instanceof MsgMap)) return differ();
  const keys = Object.keys(want);
  const entries = got.entries;
  for (let i = 0; i < keys.length && i < entries.length; i++) {
    if (entries[i][0] !== keys[i]) {
      return `${where}: key ${i + 1} expected "${keys[i]}", got ${show(entries[i][0])} (map {${entries.map(([k]) => String(k)).join(', ')}})`;
    }
    const d = firstDifference(want[keys[i]], entries[i][1], join(path, keys[i]));
    if (d !== null) return d;
  }
  if (keys.length !== entries.length) {
    return `${where}: expected map {${keys.join(', ')}}, got map {${entries.map(([k]) => String(k)).join(', ')}}`;
  }
  return null;
}

// A value through the builder: floats arrive as plain numbers, so float
// and integer cannot be told apart there (docs/workloads.md); bin as
// Uint8Array/Buffer.
function sameBuilderValue(want, got) {
  if (want instanceof Real) want = want.value;
  if (typeof want === 'number' && typeof got === 'number') return Object.is(want, got) || (want === 0 && got === 0);
  if (typeof got === 'bigint' && typeof want === 'number') return BigInt(want) === got;
  return want === got;
}

/**
 * Check what the builder returned (`result`, or the thrown `error`) against
 * the expanded expected response map of the step (`want`, kind 'rows',
 * 'exec' or 'error').  Null if right, else the first difference.  The
 * request id is the session's own there, so `i` is not compared.
 */
export function builderDifference(kind, want, result, error) {
  if (kind === 'error') {
    if (error === undefined) return `e: expected the SQL error ${JSON.stringify(want.e)}, got ${Array.isArray(result) ? `${result.length} rows` : 'a result'}`;
    if (error.code === 'DALSHIM_E_SQL' && error.message === want.e) return null;
    return `e: expected the SQL error ${JSON.stringify(want.e)}, got ${error.code ?? error.name}: ${error.message}`;
  }
  if (error !== undefined) return `expected ${kind === 'rows' ? 'rows' : 'an exec result'}, got ${error.code ?? error.name}: ${error.message}`;
  if (kind === 'exec') {
    if (Array.isArray(result)) return `expected an exec result, got ${result.length} rows`;
    if (!sameBuilderValue(want.ra, result.rowsAffected)) return `rowsAffected: expected ${want.ra}, got ${result.rowsAffected}`;
    if (!sameBuilderValue(want.li, result.lastInsertId)) return `lastInsertId: expected ${want.li}, got ${result.lastInsertId}`;
    return null;
  }
  if (!Array.isArray(result)) return `expected rows, got ${show(result)}`;
  const { c: columns, r: rows } = want;
  for (let i = 0; i < rows.length && i < result.length; i++) {
    const row = result[i];
    const keys = Object.keys(row);
    if (keys.length !== columns.length || keys.some((k, j) => k !== columns[j])) {
      return `r[${i}]: expected columns ${columns.join(', ')}, got ${keys.join(', ')}`;
    }
    for (let j = 0; j < columns.length; j++) {
      if (!sameBuilderValue(rows[i][j], row[columns[j]])) {
        return `r[${i}].${columns[j]}: expected ${show(rows[i][j])}, got ${show(row[columns[j]])}`;
      }
    }
  }
  if (rows.length !== result.length) return `r: expected ${rows.length} rows, got ${result.length}`;
  return null;
}
