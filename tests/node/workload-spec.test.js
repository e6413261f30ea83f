// The JS reading of the workload format (docs/workloads.md), shared by every
// JS driver: stress/js/workload-expr.js, workload-spec.js,
// workload-msgpack.js, workload-check.js.  Pure JS, no DAL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { encodeRequest } from '../../lib/codec.js';
import { compileExpr } from '../../stress/js/workload-expr.js';
import { builderDifference, firstDifference } from '../../stress/js/workload-check.js';
import { MsgMap, Real, Writer, decode } from '../../stress/js/workload-msgpack.js';
import { parseOptions as parseCompareOptions } from '../../stress/compare/options.js';
import {
  WORKLOADS_DIR, WORKLOAD_NAMES, WorkloadError, WorkloadSpec, loadWorkload, parseWorkload, workloadNames,
} from '../../stress/js/workload-spec.js';
import { REFERENCE_REQUEST, REFERENCE_RESPONSE, answerDifference } from '../../stress/js/workload.js';

const hex = (b) => Buffer.from(b).toString('hex');
const scope = new Map([['t', 0], ['n', 1], ['c', 2], ['id', 3]]);
const ev = (text, env = [0, 0, 0, 0]) => compileExpr(text, scope).eval(env);

// A one-step workload around `step` (and optional top-level fields).
function workload(step, extra = {}) {
  return JSON.stringify({ format: 1, name: 'unit', db: 'unit.sqlite', steps: [step], ...extra });
}
const step = (commandsArgs, expect = { i: { $: 'id' }, ra: 0, li: 0 }) =>
  ({ commands: [{ method: 'In', args: ['x'] }, { method: 'Find', args: [commandsArgs] }], expect });

test('expressions: C precedence and associativity', () => {
  assert.equal(ev('2 + 3 * 4'), 14);
  assert.equal(ev('(2 + 3) * 4'), 20);
  assert.equal(ev('10 - 4 - 3'), 3);
  assert.equal(ev('100 / 10 / 5'), 2);
  assert.equal(ev('7 % 4 * 3'), 9);
  assert.equal(ev('-2 * 3 + -(4 - 1)'), -9);
  assert.equal(ev('n * 37 + t * 11', [2, 5, 0, 0]), 207);
});

test('expressions: / and % truncate toward zero, as in C', () => {
  assert.equal(ev('-7 / 2'), -3);
  assert.equal(ev('-7 % 2'), -1);
  assert.equal(ev('7 / -2'), -3);
  assert.equal(ev('7 % -2'), 1);
  assert.ok(Object.is(ev('-1 / 2'), 0), 'the integer 0, never -0');
  assert.ok(Object.is(ev('-4 % 2'), 0));
  // Exact where float division would round up: (2^53 - 1) / 3 * 3 + remainder.
  const big = 9007199254740991;
  assert.equal(ev(`${big} / 3`) * 3 + ev(`${big} % 3`), big);
  assert.equal(ev(`${big - 1} / 5`), Number((BigInt(big - 1) / 5n)));
});

test('expressions: unknown variable, division by zero, range, syntax', () => {
  assert.throws(() => ev('n + nope'), (e) => e instanceof WorkloadError && /unknown variable "nope"/.test(e.message));
  assert.throws(() => ev('1 / 0'), /division by zero/);
  assert.throws(() => ev('5 % (3 - 3)'), /division by zero/);
  // Not constant: the error comes when it is evaluated.
  const f = compileExpr('10 / n', scope);
  assert.equal(f.eval([0, 5, 0, 0]), 2);
  assert.throws(() => f.eval([0, 0, 0, 0]), /division by zero/);
  assert.throws(() => ev('9007199254740991 + 1'), /outside \+-\(2\^53 - 1\)/);
  assert.throws(() => ev('9007199254740992'), /outside/);
  assert.throws(() => ev('n * 4294967296', [0, 4294967296, 0, 0]), /a product is outside/);
  for (const bad of ['', '1 +', '(1', '1 2', '2 ** 3', '1.5', 'a-']) assert.throws(() => ev(bad), WorkloadError, bad);
});

test('templates: $, $str, $real, $repeat, literal $-objects, lets', () => {
  const w = parseWorkload(workload({
    let: { k: 'n * 2' },
    commands: [{ method: 'In', args: ['x'] }, {
      method: 'Insert', args: { $repeat: { var: 'j', from: 'k', count: 3, item: {
        a: { $: 'j * 10 + t' }, s: { $str: 'row-{j}-{t + 1}!' }, f: { $real: 'j', over: 4 }, lit: { $gt: 2 }, one: 1.5,
      } } },
    }],
    expect: { i: { $: 'id' }, ra: 3, li: { $: 'k + 2' } },
  }, { let: { base: 't + 100' } }));
  const q = w.query(1, 3);
  assert.equal(q.id, 2 * 2 ** 32 + 3);
  const rows = q.commands[1].args;
  assert.equal(rows.length, 3);
  assert.deepEqual(rows.map((r) => r.a), [61, 71, 81]);
  assert.deepEqual(rows.map((r) => r.s), ['row-6-2!', 'row-7-2!', 'row-8-2!']);
  assert.ok(rows[0].f instanceof Real && rows[0].f.value === 1.5);
  assert.ok(rows[2].f instanceof Real && rows[2].f.value === 2, 'an integral $real stays a float');
  assert.deepEqual(rows[0].lit, { $gt: 2 });
  assert.ok(rows[0].one instanceof Real);
  assert.deepEqual(q.expect, { i: q.id, ra: 3, li: 8 });
  // The builder form: plain numbers, new objects per query.
  const b = parseWorkload(workload({ commands: [{ method: 'In', args: ['x'] }, { method: 'Find', args: [{ f: { $real: 'n', over: 2 } }] }],
    expect: { i: 1, c: ['f'], r: [] } }), { builder: true });
  assert.equal(b.query(0, 3).commands[1].args[0].f, 1.5);
  assert.notEqual(b.query(0, 1).commands[1].args[0], b.query(0, 1).commands[1].args[0]);
  // $repeat with count 0 and a variable count.
  const r = parseWorkload(workload(step({ v: { $repeat: { var: 'j', count: 'n % 3', item: { $: 'j' } } } })));
  assert.deepEqual(r.query(0, 0).commands[1].args[0].v, []);
  assert.deepEqual(r.query(0, 2).commands[1].args[0].v, [0, 1]);
});

test('workload errors are found at load, with the place named', () => {
  const bad = [
    [workload(step({ a: { $: 'n + zz' } })), /steps\[0\]\.commands\[1\]\.args\[0\]\.a: expression "n \+ zz": unknown variable "zz"/],
    [workload(step({ a: { $: 'n / (c - c)' } })), /division by zero/], // found by the trial expansion
    [workload(step({ a: 5.0 })).replace('"a":5', '"a":5.0'), /line 1: 5\.0 is a float with an integral value/],
    [workload(step({ a: 1 })).replace('"a":1', '"a":12345678901234567890'), /outside/],
    [workload(step({ a: { $str: 'x{n' } })), /unbalanced/],
    [workload(step({ a: { $real: 'n', over: 0 } })), /over/],
    [workload(step({ a: { $repeat: { var: 'n', count: 1, item: 1 } } })), /a new variable name/],
    [workload(step({ a: { $: 'n', extra: 1 } })), /unknown key in a \$ template/],
    [workload(step({ 1: 'x' })), /integer-like map key/],
    [workload({ commands: [{ method: 'Find', args: [{}] }], expect: { i: 1, ra: 0, li: 0 } }), /starts with In/],
    [workload({ commands: [{ method: 'Nope', args: [] }], expect: { i: 1, ra: 0, li: 0 } }), /method: "Nope"/],
    [workload(step({}, { i: 1, li: 0, ra: 0 })), /keys i,li,ra/],
    [workload(step({}), { format: 2 }), /format: 2/],
    [workload(step({}), { name: 'a;b' }), /name: "a;b"/],
    [workload(step({}), { bogus: 1 }), /bogus: unknown key/],
    ['{"format": 1,', /not JSON/],
  ];
  for (const [text, why] of bad) assert.throws(() => parseWorkload(text), (e) => e instanceof WorkloadError && why.test(e.message), text);
  assert.throws(() => loadWorkload('nosuch'), /unknown workload "nosuch"/);
  assert.throws(() => loadWorkload('/nonexistent/w.json'), /cannot read workload/);
});

test('every workload of stress/workloads/ loads; ids are (t + 1) * 2^32 + n unless literal', () => {
  for (const name of WORKLOAD_NAMES) {
    const w = loadWorkload(name);
    assert.equal(w.name, name);
    if (name !== 'reference') assert.equal(w.query(3, 17).id, WorkloadSpec.id(3, 17));
  }
  assert.equal(loadWorkload('reference').query(5, 100).id, 9);
  assert.equal(loadWorkload('reference').constant, true);
  assert.equal(loadWorkload('rows').constant, false);
  const seed = [...loadWorkload('rows').seedQueries()];
  assert.equal(seed.length, 10);
  assert.equal(seed[9].commands[1].args.length, 100);
  assert.deepEqual(seed[9].expect, { i: 2 ** 32 + 9, ra: 100, li: 1000 });
});

test('the reference workload is the 87-byte request and 34-byte answer', () => {
  const w = loadWorkload('reference');
  const q = w.query(0, 0);
  const writer = new Writer();
  assert.equal(hex(writer.encode({ id: q.id, db: w.db, commands: q.commands })), hex(REFERENCE_REQUEST));
  assert.equal(hex(writer.encode(q.expect)), hex(REFERENCE_RESPONSE));
});

test('the workload writer makes the bytes of the addon\'s encoder (lib/codec.js, tested equal to it)', () => {
  const ints = [0, 1, 127, 128, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, 2 ** 53 - 1,
    -1, -32, -33, -128, -129, -32768, -32769, -(2 ** 31), -(2 ** 31) - 1, -(2 ** 53 - 1)];
  const strs = ['', 'x'.repeat(31), 'y'.repeat(32), 'z'.repeat(255), 'w'.repeat(256), 'é€😀', 'a\u0000b', 'é'.repeat(20)];
  const request = { id: 2 ** 32 + 7, db: 'unit.sqlite', commands: [{ method: 'In', args: ['x'] },
    { method: 'Find', args: [{ a: { $in: ints }, s: { $in: strs }, f: 0.5, m: { k: [null, true, false] } }] }] };
  assert.equal(hex(new Writer(8).encode(request)), hex(encodeRequest(request, true)));
  // A Real is float64 even when integral; msgpackr would write an integer.
  assert.equal(hex(new Writer().encode([new Real(5), 5])), '92' + 'cb4014000000000000' + '05');
  // decode() keeps floats and map order.
  const d = decode(new Writer().encode({ b: new Real(2), a: [1, -200, 'x'] }));
  assert.ok(d instanceof MsgMap);
  assert.deepEqual(d.entries.map(([k]) => k), ['b', 'a']);
  assert.ok(d.entries[0][1] instanceof Real);
  assert.deepEqual(d.entries[1][1], [1, -200, 'x']);
});

test('an answer check names the first difference', () => {
  const w = loadWorkload('rows');
  const q = w.query(0, 3);
  const right = Uint8Array.from(new Writer().encode(q.expect));
  assert.equal(answerDifference(q.expect, right, right.length), null);
  // Row 3, price: a float expected; the integer the same value is not it.
  const wrongRows = structuredClone(q.expect.r);
  wrongRows[3][4] = 8;
  const withInt = new Writer().encode({ ...q.expect, r: wrongRows.map((r, i) => (i === 3 ? r : r.map((v) => (typeof v === 'object' && v ? new Real(v.value) : v)))) });
  assert.match(answerDifference(q.expect, withInt, withInt.length), /^r\[3\]\[4\]: expected float64 \d+(\.\d+)?, got integer 8$/);
  const otherName = new Writer().encode({ ...q.expect, c: ['id', 'k', 'NAME', 'qty', 'price', 'note'] });
  assert.match(answerDifference(q.expect, otherName, otherName.length), /^c\[2\]: expected string "name", got string "NAME"$/);
  const error = new Writer().encode({ i: q.id, ra: 0, li: 0, e: 'no such table: items' });
  assert.match(answerDifference(q.expect, error, error.length), /key 2 expected "c", got string "ra"/);
  assert.match(answerDifference(q.expect, right, 5), /undecodable answer/);
  assert.equal(firstDifference([1, 2], [1]), '(answer): expected 2 items, got 1');
  // The DAL writes integers in signed forms (200 as int16, d1 00 c8): the
  // same integer as msgpack-c's uint8 (cc c8).  A float is never an integer.
  const signed = Uint8Array.from([0x93, 0xd1, 0x00, 0xc8, 0xd0, 0x9c, 0xcb, 0x40, 0x14, 0, 0, 0, 0, 0, 0]);
  assert.equal(answerDifference([200, -100, new Real(5)], signed, signed.length), null);
  assert.match(answerDifference([200, -100, 5], signed, signed.length), /^\[2\]: expected integer 5, got float64 5$/);
  assert.match(answerDifference([200, -100, new Real(5)], signed, 4), /undecodable/);
});

test('builder answers: rows by column, exec counts, SQL errors by message', () => {
  const rows = { i: 1, c: ['a', 'b'], r: [[1, new Real(2)], [3, null]] };
  assert.equal(builderDifference('rows', rows, [{ a: 1, b: 2 }, { a: 3, b: null }]), null);
  assert.equal(builderDifference('rows', rows, [{ a: 1, b: 2.5 }, { a: 3, b: null }]), 'r[0].b: expected float64 2, got float64 2.5');
  assert.equal(builderDifference('rows', rows, [{ a: 1, b: 2 }]), 'r: expected 2 rows, got 1');
  assert.equal(builderDifference('rows', rows, [{ b: 2, a: 1 }, { a: 3, b: null }]), 'r[0]: expected columns a, b, got b, a');
  const exec = { i: 1, ra: 1, li: 7 };
  assert.equal(builderDifference('exec', exec, { rowsAffected: 1, lastInsertId: 7 }), null);
  assert.equal(builderDifference('exec', exec, { rowsAffected: 1, lastInsertId: 6 }), 'lastInsertId: expected 7, got 6');
  const err = { i: 1, ra: 0, li: 0, e: 'no such table: data' };
  const sqlError = Object.assign(new Error('no such table: data'), { code: 'DALSHIM_E_SQL' });
  assert.equal(builderDifference('error', err, undefined, sqlError), null);
  assert.match(builderDifference('error', err, []), /expected the SQL error "no such table: data", got 0 rows/);
  assert.match(builderDifference('exec', exec, undefined, sqlError), /got DALSHIM_E_SQL: no such table/);
});

test('workload names are the files of stress/workloads/: a file dropped into a copy of it is a workload by name', () => {
  const files = readdirSync(WORKLOADS_DIR).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
  assert.deepEqual(WORKLOAD_NAMES, files);
  assert.ok(WORKLOAD_NAMES.includes('reference'), 'the default workload ships');
  // stress:compare checks --workload NAME against the same files.
  for (const name of WORKLOAD_NAMES) assert.equal(parseCompareOptions(['--workload', name], process.cwd()).workload, name);

  const dir = mkdtempSync(join(tmpdir(), 'workloads-'));
  try {
    cpSync(WORKLOADS_DIR, dir, { recursive: true });
    const w = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8'));
    writeFileSync(join(dir, 'dropped-in.json'), JSON.stringify({ ...w, name: 'dropped-in' }));
    assert.deepEqual(workloadNames(dir), [...files, 'dropped-in'].sort());
    const dropped = loadWorkload('dropped-in', { dir });
    assert.equal(dropped.name, 'dropped-in');
    // The same requests and answers as the file it was copied from, byte for byte.
    const ref = loadWorkload('reference');
    const bytes = (spec, q) => hex(new Writer().encode({ id: q.id, db: spec.db, commands: q.commands })) + hex(new Writer().encode(q.expect));
    assert.equal(bytes(dropped, dropped.query(0, 0)), bytes(ref, ref.query(0, 0)));
    assert.throws(() => loadWorkload('nosuch', { dir }),
      (e) => e instanceof WorkloadError && e.message.includes(`(expected ${[...files, 'dropped-in'].sort().join(', ')} or a .json file path)`));
    // The shipped directory is untouched: the name is unknown there.
    assert.throws(() => loadWorkload('dropped-in'), /unknown workload "dropped-in"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
