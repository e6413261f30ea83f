// tests/ffi/cases.js -- data shared by the FFI suites (Bun, Deno, koffi) and
// the addon-side request dump: the schema, the table of queries whose
// request bytes must be identical on every path, and the refusals.
// Plain ESM, no runtime APIs.

export const SCHEMA = `
CREATE TABLE data (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, name TEXT, score REAL, blob BLOB);
CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE posts (id INTEGER PRIMARY KEY, user_id INTEGER, title TEXT);
CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER, note TEXT);
`;

// Queries whose encoding must be byte-identical across the addon (msgpack-c
// in C++) and msgpackr in Bun, Deno and Node/koffi.  Each covers an encoding
// edge: integer widths at every boundary, negative forms, wide safe
// integers, BigInt (small, int64, uint64), -0, floats, strings at the
// fixstr/str8/str16 boundaries and non-ASCII, bin, nested maps and arrays,
// undefined properties (skipped), numeric-looking keys, every method.
const ints = [0, 1, 127, 128, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1,
  -1, -32, -33, -128, -129, -32768, -32769, -(2 ** 31), -(2 ** 31) - 1, -(2 ** 53 - 1)];
export const REQUEST_TABLE = [
  ['reference', (db) => db.In('data').Find({ a: 1, b: { $gt: 2 } })],
  ['integer boundaries', (db) => db.In('data').Find({ a: { $in: ints } })],
  ['bigints', (db) => db.In('data').Find({ a: { $in: [0n, 5n, -5n, 2n ** 40n, -(2n ** 40n), 2n ** 63n - 1n, -(2n ** 63n), 2n ** 64n - 1n] } })],
  ['negative zero and floats', (db) => db.In('data').Find({ score: { $in: [-0, 0.5, -1.25, 1e300, 2 ** 60, Number.MIN_VALUE] } })],
  ['strings', (db) => db.In('data').Find({ name: { $in: ['', 'x'.repeat(31), 'y'.repeat(32), 'z'.repeat(255), 'w'.repeat(256), 'é€😀', 'a\u0000b'] } })],
  ['binary', (db) => db.In('data').Find({ blob: new Uint8Array([0, 1, 2, 255]) })],
  ['large binary', (db) => db.In('data').Find({ blob: new Uint8Array(70000).fill(7) })],
  ['nested logic', (db) => db.In('data').Find({ $or: [{ a: 1 }, { $and: [{ b: { $gte: 2, $lte: 9 } }, { $not: { name: null } }] }] })],
  ['undefined property skipped', (db) => db.In('data').Find({ a: 1, b: undefined, name: 'x' })],
  ['numeric-looking keys', (db) => db.In('kv').Insert({ k: 'x', v: 1, note: 'n' }).OnConflict('k').DoUpdate('v', 'note')],
  ['every select method', (db) => db.In('users', 'u').Fields('u.id', 'count(*) as n').Join({ $for: 'posts p', $do: { 'u.id': 'p.user_id' }, $as: 'left' })
    .Group('u.id').Sort({ 'u.id': -1 }).Limit(10).Offset(5).Find({ 'u.name': { $like: 'a%' } })],
  ['insert many', (db) => db.In('data').Insert({ a: 1, b: 2, name: 'n1', score: 1.5, blob: null }, { a: 2, b: 3, name: 'n2', score: 2, blob: null })],
  ['update', (db) => db.In('data').Set({ name: 'renamed', score: 0.25 }).Find({ id: 7 })],
  ['delete', (db) => db.In('data').Delete().Find({ b: { $between: [1, 3] } })],
  ['do nothing', (db) => db.In('kv').Insert({ k: 'a', v: 1 }).OnConflict().DoNothing()],
  ['booleans and null', (db) => db.In('data').Find({ a: true, b: false, name: null })],
  ['wide id', (db) => db.In('data').Find({ a: 1 }), 2 ** 40],
  ['other database file', (db) => db.In('data').Db('other.sqlite').Find({ a: 1 })],
];
// Request ids used for the table (the last column overrides it).
export const TABLE_ID = 4242;

// Values the encoder must refuse: [what, value, the path the TypeError's
// message starts with, the reason it gives].
export function refusals() {
  const cycle = { a: 1 };
  cycle.self = cycle;
  let deep = 1;
  for (let i = 0; i < 70; i++) deep = [deep];
  return [
    ['function', { a: () => 1 }, 'Find.args[0].a: ', /function/],
    ['symbol', { a: { b: { $gt: Symbol('s') } } }, 'Find.args[0].a.b.$gt: ', /symbol/],
    ['undefined in array', { a: { $in: [1, undefined] } }, 'Find.args[0].a.$in[1]: ', /undefined/],
    ['cycle', cycle, 'Find.args[0].self: ', /cycle/],
    // The path goes down to the level where the limit is hit.
    ['too deep', { a: deep }, 'Find.args[0].a[0][0]', /nesting deeper than 64/],
    ['NaN', { a: NaN }, 'Find.args[0].a: ', /NaN/],
    ['Infinity', { a: { $lt: Infinity } }, 'Find.args[0].a.$lt: ', /Infinity/],
    ['BigInt beyond uint64', { a: 2n ** 64n }, 'Find.args[0].a: ', /outside int64\/uint64/],
    ['BigInt below int64', { a: -(2n ** 63n) - 1n }, 'Find.args[0].a: ', /outside int64\/uint64/],
    ['Date', { a: new Date(0) }, 'Find.args[0].a: ', /Date cannot be encoded/],
    ['Map', { a: new Map() }, 'Find.args[0].a: ', /Map cannot be encoded/],
  ];
}

export const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
