// JS values -> MessagePack: the exact bytes of the shim's C++ encoder
// (msgpack-c, through the addon's addon/src/js_encoder.cpp: native.encodeRequest),
// the same bytes from lib/codec.js (msgpackr), which every runtime's API
// sends, and every refusal with the path it names.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { encodeRequest, native, Query } from '../../lib/index.js';
import * as codec from '../../lib/codec.js';
import { REFERENCE_REQUEST } from '../../stress/js/workload.js';
import { hex } from './helpers.js';

const find = (filter) => new Query().In('data').Find(filter);
// The C++ reference encoder.
const bytes = (q, id = 1) => native.encodeRequest(id, q.db, q.methods, q.args);
// The encoding of one value, cut out of a request: it is the last thing the
// request holds (Find's args[0]).
function valueBytes(v) {
  const withV = bytes(find(v));
  const withNil = bytes(find(null));
  return hex(withV.subarray(withNil.length - 1));
}

test('the reference query encodes to the study\'s 87 bytes', () => {
  assert.equal(hex(bytes(find({ a: 1, b: { $gt: 2 } }), 9)), hex(REFERENCE_REQUEST));
});

test('every value type in its smallest msgpack-c form', () => {
  const cases = [
    [null, 'c0'], [true, 'c3'], [false, 'c2'],
    [0, '00'], [127, '7f'], [128, 'cc80'], [255, 'ccff'], [256, 'cd0100'], [65536, 'ce00010000'],
    [2 ** 32, 'cf0000000100000000'], [Number.MAX_SAFE_INTEGER, 'cf001fffffffffffff'],
    [-1, 'ff'], [-32, 'e0'], [-33, 'd0df'], [-129, 'd1ff7f'], [-(2 ** 31) - 1, 'd3ffffffff7fffffff'],
    [-0, '00'], [1.5, 'cb3ff8000000000000'], [2 ** 53, 'cb4340000000000000'], [1e300, 'cb7e37e43c8800759c'],
    [1n, '01'], [-1n, 'ff'], [2n ** 63n - 1n, 'cf7fffffffffffffff'], [2n ** 64n - 1n, 'cfffffffffffffffff'],
    [-(2n ** 63n), 'd38000000000000000'],
    ['', 'a0'], ['héllo', 'a668c3a96c6c6f'], ['x'.repeat(32), `d920${'78'.repeat(32)}`],
    [new Uint8Array([1, 2, 3]), 'c403010203'], [Buffer.from([255]), 'c401ff'],
    [[], '90'], [[1, [2]], '920191 02'.replace(' ', '')], [{}, '80'],
    [{ b: 1, a: 2 }, '82a16201a16102'], // insertion order, not sorted
    [{ a: 1, skip: undefined }, '81a16101'], // undefined properties skipped, as JSON
    [Object.assign(Object.create(null), { k: 'v' }), '81a16ba176'],
  ];
  for (const [v, want] of cases) assert.equal(valueBytes(v), want, `value ${typeof v === 'bigint' ? `${v}n` : JSON.stringify(v)}`);
  const big = 'y'.repeat(70000);
  assert.equal(valueBytes(big).slice(0, 10), 'db00011170');
});

test('the C++ encoder and lib/codec.js produce the same bytes for the same query', () => {
  const queries = [
    find({ a: 1, b: { $gt: 2 } }),
    find({ $or: [{ a: { $in: [1, 2, 3] } }, { b: null }], c: { $between: [1.5, 2 ** 40] }, d: -5 }),
    new Query().In('t', 'x').Fields('a', 'count(*) as n').Join({ $for: 'u', $do: { 'u.id': 'x.a' }, $as: 'left' })
      .Group('a').Sort({ n: -1, a: 'asc' }).Limit(10).Offset(20),
    new Query().In('kv').Insert({ k: 'x', v: new Uint8Array([9, 8]) }, { k: 'y', v: 2n ** 40n }).OnConflict('k').DoUpdate('v'),
    new Query().In('kv').Set({ v: true, w: -1.25 }).Find({ k: { $like: 'a%' } }),
    new Query().In('kv').Delete().Find({ $not: { k: 'z' }, big: -(2n ** 63n), u: 2n ** 64n - 1n }),
    Query.tx(null, 'database.sqlite', [new Query().In('a').Insert({ x: 1 }), new Query().In('b').Delete()]),
    new Query().In('t').Db('other.sqlite').Find({ skip: undefined, 'ünï': 'ç' }),
  ];
  for (const [i, q] of queries.entries()) {
    for (const id of [0, 7, 300, 2 ** 40]) {
      assert.equal(hex(bytes(q, id)), hex(codec.encodeRequest(q.request(id), true)), `query ${i} id ${id}`);
      assert.equal(hex(encodeRequest(q, id)), hex(bytes(q, id)), `query ${i} id ${id}: what the Node API sends`);
    }
  }
});

test('every form boundary: the C++ encoder and lib/codec.js write the same bytes', () => {
  const ints = [127, 128, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 5, -32, -33, -128, -129, -32768,
    -32769, -(2 ** 31), -(2 ** 31) - 1, -(2 ** 40) - 7, -Number.MAX_SAFE_INTEGER, 0.1, -(2 ** 53),
    2n ** 32n - 1n, 2n ** 32n, 2n ** 63n, -(2n ** 31n), -(2n ** 31n) - 1n, 0n];
  const sized = (n) => [Array.from({ length: n }, (_, i) => i), Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])),
    new Uint8Array(n), 'a'.repeat(n), 'é'.repeat(n)];
  const values = [...ints, ...[15, 16, 31, 32, 255, 256, 65535, 65536].flatMap(sized), '\ud800', 'a\udc00b', '😀'.repeat(9),
    { __proto__: null, ['__proto__']: 1 }, { 2: 'a', 1: 'b', z: 1 }, { deep: [[[{ a: [1n, -5, 'ü'] }]]] }];
  for (const [i, v] of values.entries()) {
    const q = find(v);
    for (const id of [5, 2 ** 40, 2n ** 62n]) {
      assert.equal(hex(codec.encodeRequest(q.request(id), true)), hex(bytes(q, id)), `value ${i} id ${id}`);
    }
  }
});

test('a getter that encodes a query itself does not disturb the encoding it runs in', () => {
  const inner = find({ x: 'inner' });
  const outer = find({ a: 1, get b() { codec.encodeRequest(inner.request(2)); return 'x'.repeat(40); }, c: [3] });
  assert.equal(hex(codec.encodeRequest(outer.request(1))), hex(bytes(outer)));
});

test('refusals are TypeErrors naming the path; nothing is sent', () => {
  const cyclic = { a: 1 };
  cyclic.self = cyclic;
  const arr = [1];
  arr.push([arr]);
  let deep = 1;
  for (let i = 0; i < 70; i++) deep = [deep];
  class Point { constructor() { this.x = 1; } }
  const cases = [
    [find({ a: 1, b: { $gt: () => 2 } }), 'Find.args[0].b.$gt: a function cannot be encoded'],
    [find({ s: Symbol('x') }), 'Find.args[0].s: a symbol cannot be encoded'],
    [find({ $in: [1, undefined] }), 'Find.args[0].$in[1]: undefined cannot be encoded (inside an array)'],
    [find({ $in: [1, , 3] }), 'Find.args[0].$in[1]: undefined cannot be encoded (inside an array)'], // eslint-disable-line no-sparse-arrays
    [find(cyclic), 'Find.args[0].self: cycle (the value contains itself)'],
    [find({ x: arr }), 'Find.args[0].x[1][0]: cycle (the value contains itself)'],
    [find({ n: NaN }), 'Find.args[0].n: non-finite number NaN cannot be encoded'],
    [find({ n: -Infinity }), 'Find.args[0].n: non-finite number -Infinity cannot be encoded'],
    [find({ n: 2n ** 64n }), 'Find.args[0].n: BigInt 18446744073709551616 is outside int64/uint64'],
    [find({ n: -(2n ** 63n) - 1n }), 'Find.args[0].n: BigInt -9223372036854775809 is outside int64/uint64'],
    [find({ d: new Date(0) }), 'Find.args[0].d: Date cannot be encoded (plain objects, arrays and Uint8Array only)'],
    [find({ m: new Map() }), 'Find.args[0].m: Map cannot be encoded (plain objects, arrays and Uint8Array only)'],
    [find({ p: new Point() }), 'Find.args[0].p: Point cannot be encoded (plain objects, arrays and Uint8Array only)'],
    [find({ f: new Float64Array(1) }), 'Find.args[0].f: Float64Array cannot be encoded (plain objects, arrays and Uint8Array only)'],
    [new Query().In('t').Insert({ a: 1 }, { b: [deep] }), 'Insert.args[1].b'],
  ];
  for (const [q, message] of cases) {
    for (const encode of [(x) => bytes(x), (x) => codec.encodeRequest(x.request(1), true)]) {
      assert.throws(() => encode(q), (e) => e instanceof TypeError && e.message.startsWith(message), message);
    }
  }
  // Depth: containers nested up to the limit inside one command's args pass.
  let ok = 1;
  for (let i = 0; i < native.maxDepth - 2; i++) ok = [ok];
  assert.doesNotThrow(() => bytes(find(ok)));
  assert.throws(() => bytes(find([[ok]])), /nesting deeper than 64 levels/);
});

test('a throwing getter in a filter propagates its own error', () => {
  const filter = { get a() { throw new RangeError('from the getter'); } };
  assert.throws(() => bytes(find(filter)), { name: 'RangeError', message: 'from the getter' });
});

test('strings around the 256-byte stack copy encode whole, whatever char straddles it', () => {
  // napi_get_value_string_utf8 stops at a character boundary: a 2-, 3- or
  // 4-byte char crossing byte 255 left n at 252..254 and the string was cut.
  for (const ch of ['é', '€', '😀']) {
    for (let len = 240; len <= 270; len++) {
      for (const s of ['a'.repeat(len) + ch, 'a'.repeat(len - 1) + ch + 'b', ch.repeat(Math.ceil(len / ch.length))]) {
        const want = Buffer.from(s, 'utf8');
        const q = find({ k: s });
        const got = bytes(q);
        assert.equal(hex(got), hex(codec.encodeRequest(q.request(1), true)), `len ${len} ${JSON.stringify(ch)}`);
        assert.ok(Buffer.from(got).includes(want), `all ${want.length} bytes of the string are sent (len ${len} ${ch})`);
      }
    }
  }
});

test('a Proxy of an array is an array for the C++ encoder as for lib/codec.js', () => {
  const arr = new Proxy([1, 'two', [3]], {});
  const q = find({ a: { $in: arr }, b: new Proxy({ x: 1 }, {}) });
  assert.equal(hex(bytes(q)), hex(codec.encodeRequest(q.request(1), true)));
  assert.equal(valueBytes(arr), valueBytes([1, 'two', [3]]));
  assert.equal(valueBytes(new Proxy([], {})), '90');
  // Proxies of what is refused are refused alike, with the same message
  // (napi_get_prototype does not see through a Proxy; Object.getPrototypeOf does).
  for (const v of [new Proxy(new Date(0), {}), new Proxy(new Map(), {}), new Proxy({ a: 1 }, { getPrototypeOf: () => Array.prototype })]) {
    const q2 = find({ v });
    let want;
    assert.throws(() => codec.encodeRequest(q2.request(1), true), (e) => { want = e.message; return e instanceof TypeError; });
    assert.throws(() => bytes(q2), { name: 'TypeError', message: want });
  }
});
