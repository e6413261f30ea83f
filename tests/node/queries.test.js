// Every builder method and filter against a real SQLite database, through
// the addon: rows are written with Insert/Set/Delete/Tx, then read back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { open, DalError } from '../../lib/index.js';
import { tempDir, createTables } from './helpers.js';

let tmp;
let db;
before(() => {
  tmp = tempDir();
  createTables(tmp.dir, `
    CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, qty INTEGER, price REAL, tag TEXT, data BLOB);
    CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER);
    CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);
    CREATE TABLE posts (id INTEGER PRIMARY KEY, user_id INTEGER, title TEXT);
    CREATE TABLE log (id INTEGER PRIMARY KEY, msg TEXT);
    CREATE TABLE nums (id INTEGER PRIMARY KEY, n INTEGER);`);
  db = open({ dir: tmp.dir });
  const r = db.In('items').Insert(
    { id: 1, name: 'apple', qty: 3, price: 1.25, tag: 'fruit', data: new Uint8Array([1, 2]) },
    { id: 2, name: 'banana', qty: 0, price: 0.5, tag: 'fruit', data: null },
    { id: 3, name: 'carrot', qty: 10, price: 0.1, tag: 'veg', data: null },
    { id: 4, name: 'durian', qty: 1, price: 9.99, tag: null, data: null },
    { id: 5, name: 'eggplant', qty: 7, price: 2, tag: 'veg', data: null },
  ).run();
  assert.deepEqual(r, { rowsAffected: 5, lastInsertId: 5 });
  db.In('users').Insert({ id: 1, name: 'ann' }, { id: 2, name: 'bob' }, { id: 3, name: 'cy' }).run();
  db.In('posts').Insert({ id: 1, user_id: 1, title: 'a1' }, { id: 2, user_id: 1, title: 'a2' }, { id: 3, user_id: 2, title: 'b1' }).run();
});
after(() => { db.close(); tmp.cleanup(); });

const ids = (rows) => rows.map((r) => r.id);
const items = (filter) => ids(db.In('items').Find(filter).Fields('id').Sort({ id: 1 }).all());

test('rows come back as plain objects with every SQLite type', () => {
  const rows = db.In('items').Find({ id: 1 }).all();
  assert.equal(rows.length, 1);
  assert.deepEqual(Object.keys(rows[0]), ['id', 'name', 'qty', 'price', 'tag', 'data']);
  const { data, ...rest } = rows[0];
  assert.deepEqual(rest, { id: 1, name: 'apple', qty: 3, price: 1.25, tag: 'fruit' });
  assert.ok(Buffer.isBuffer(data));
  assert.deepEqual([...data], [1, 2]);
  assert.equal(Object.getPrototypeOf(rows[0]), Object.prototype);
  assert.equal(db.In('items').Find({ id: 4 }).all()[0].tag, null);
  assert.deepEqual(db.In('items').Find({ id: 99 }).all(), []);
});

test('every filter operator', () => {
  assert.deepEqual(items({}), [1, 2, 3, 4, 5]);
  assert.deepEqual(items({ tag: 'veg' }), [3, 5]);
  assert.deepEqual(items({ tag: null }), [4]);
  assert.deepEqual(items({ qty: { $eq: 3 } }), [1]);
  assert.deepEqual(items({ tag: { $eq: null } }), [4]);
  assert.deepEqual(items({ tag: { $ne: 'fruit' } }), [3, 5]);
  assert.deepEqual(items({ tag: { $ne: null } }), [1, 2, 3, 5]);
  assert.deepEqual(items({ qty: { $gt: 3 } }), [3, 5]);
  assert.deepEqual(items({ qty: { $gte: 3 } }), [1, 3, 5]);
  assert.deepEqual(items({ qty: { $lt: 3 } }), [2, 4]);
  assert.deepEqual(items({ qty: { $lte: 3 } }), [1, 2, 4]);
  assert.deepEqual(items({ qty: { $gt: 0, $lt: 7 } }), [1, 4]);
  assert.deepEqual(items({ id: { $in: [2, 4, 9] } }), [2, 4]);
  assert.deepEqual(items({ id: { $in: [] } }), []);
  assert.deepEqual(items({ id: { $nin: [2, 4] } }), [1, 3, 5]);
  assert.deepEqual(items({ id: { $nin: [] } }), [1, 2, 3, 4, 5]);
  assert.deepEqual(items({ name: { $like: '%an%' } }), [2, 4, 5]);
  assert.deepEqual(items({ name: { $nlike: '%an%' } }), [1, 3]);
  assert.deepEqual(items({ name: { $glob: 'c*' } }), [3]);
  assert.deepEqual(items({ price: { $between: [0.5, 2] } }), [1, 2, 5]);
  assert.deepEqual(items({ price: { $nbetween: [0.5, 2] } }), [3, 4]);
  assert.deepEqual(items({ $or: [{ tag: 'veg' }, { qty: 1 }] }), [3, 4, 5]);
  assert.deepEqual(items({ $and: [{ tag: 'fruit' }, { qty: { $gt: 0 } }] }), [1]);
  assert.deepEqual(items({ $not: { tag: 'fruit' } }), [3, 5]); // NOT (tag = 'fruit') is NULL for tag NULL
  assert.deepEqual(items({ $or: [{ $and: [{ tag: 'veg' }, { qty: 7 }] }, { id: 1 }] }), [1, 5]);
  assert.deepEqual(items({ price: 2 }), [5], 'a float column compared with an integer');
  assert.deepEqual(items({ qty: true }), [4], 'booleans bind as 0/1');
});

test('Fields / Select with aggregates and aliases, Group, Sort, Limit, Offset', () => {
  assert.deepEqual(db.In('items').Fields('name').Find({ id: 2 }).all(), [{ name: 'banana' }]);
  assert.deepEqual(db.In('items').Select('tag', 'count(*) as n', 'sum(qty) as total').Find({ tag: { $ne: null } })
    .Group('tag').Sort({ tag: 'asc' }).all(), [{ tag: 'fruit', n: 2, total: 3 }, { tag: 'veg', n: 2, total: 17 }]);
  assert.deepEqual(db.In('items').Fields('min(price) as lo', 'max(price) as hi', 'avg(qty) as mean').all(),
    [{ lo: 0.1, hi: 9.99, mean: 4.2 }]);
  assert.deepEqual(ids(db.In('items').Fields('id').Sort({ qty: -1 }).Limit(2).all()), [3, 5]);
  assert.deepEqual(ids(db.In('items').Fields('id').Sort({ id: 'desc' }).Limit(2).Offset(1).all()), [4, 3]);
  assert.deepEqual(ids(db.In('items').Fields('id').Sort({ id: 1 }).Offset(3).all()), [4, 5]);
  assert.deepEqual(ids(db.In('items', 'i').Fields('i.id').Find({ 'i.qty': 0 }).all()), [2]);
});

test('Join: inner and left, with aliases', () => {
  const inner = db.In('users', 'u').Fields('u.name', 'p.title').Join({ $for: 'posts p', $do: { 'u.id': 'p.user_id' } })
    .Sort({ 'p.id': 1 }).all();
  assert.deepEqual(inner, [{ name: 'ann', title: 'a1' }, { name: 'ann', title: 'a2' }, { name: 'bob', title: 'b1' }]);
  const left = db.In('users', 'u').Fields('u.name', 'count(p.id) as posts')
    .Join({ $for: 'posts p', $do: { 'u.id': 'p.user_id' }, $as: 'left' }).Group('u.name').Sort({ 'u.name': 1 }).all();
  assert.deepEqual(left, [{ name: 'ann', posts: 2 }, { name: 'bob', posts: 1 }, { name: 'cy', posts: 0 }]);
  const filtered = db.In('users', 'u').Fields('p.title').Join({ $for: 'posts p', $do: { 'u.id': 'p.user_id', 'p.title': { $eq: 'b1' } } }).all();
  assert.deepEqual(filtered, [{ title: 'b1' }]);
});

test('Set and Delete, with and without Find; exec results', () => {
  assert.deepEqual(db.In('nums').Insert({ n: 1 }, { n: 2 }, { n: 3 }).run(), { rowsAffected: 3, lastInsertId: 3 });
  assert.equal(db.In('nums').Set({ n: 20 }).Find({ n: 2 }).run().rowsAffected, 1);
  assert.deepEqual(db.In('nums').Fields('n').Sort({ id: 1 }).all().map((r) => r.n), [1, 20, 3]);
  assert.equal(db.In('nums').Delete().Find({ n: { $gt: 10 } }).run().rowsAffected, 1);
  assert.equal(db.In('nums').Set({ n: 0 }).run().rowsAffected, 2, 'Set without Find affects every row');
  assert.equal(db.In('nums').Delete().run().rowsAffected, 2, 'Delete without Find empties the table');
  assert.deepEqual(db.In('nums').all(), []);
});

test('Insert with OnConflict: DoUpdate and DoNothing', () => {
  db.In('kv').Insert({ k: 'a', v: 1 }).run();
  db.In('kv').Insert({ k: 'a', v: 2 }).OnConflict('k').DoUpdate('v').run();
  assert.deepEqual(db.In('kv').Find({ k: 'a' }).all(), [{ k: 'a', v: 2 }]);
  const r = db.In('kv').Insert({ k: 'a', v: 3 }).OnConflict('k').DoNothing().run();
  assert.equal(r.rowsAffected, 0);
  assert.deepEqual(db.In('kv').Find({ k: 'a' }).all(), [{ k: 'a', v: 2 }]);
  // Without OnConflict a duplicate key is an SQL error: a DalError, nothing written.
  assert.throws(() => db.In('kv').Insert({ k: 'a', v: 4 }).run(),
    (e) => e instanceof DalError && e.code === 'DALSHIM_E_SQL' && /UNIQUE constraint failed: kv\.k/.test(e.message) &&
      Number.isInteger(e.requestId));
});

test('Tx: all statements or none', () => {
  const r = db.Tx(db.In('log').Insert({ id: 100, msg: 'one' }), db.In('kv').Insert({ k: 'tx', v: 1 }),
    db.In('kv').Set({ v: 5 }).Find({ k: 'tx' }));
  assert.equal(r.rowsAffected, 3);
  assert.deepEqual(db.In('kv').Find({ k: 'tx' }).all(), [{ k: 'tx', v: 5 }]);
  // The second statement violates the primary key: the first is rolled back.
  assert.throws(() => db.Tx(db.In('log').Insert({ id: 101, msg: 'two' }), db.In('log').Insert({ id: 100, msg: 'dup' })),
    (e) => e instanceof DalError && e.code === 'DALSHIM_E_SQL');
  assert.deepEqual(db.In('log').Find({ id: 101 }).all(), []);
  assert.throws(() => db.Tx(db.In('log').Find({})), TypeError);
});

test('iterate() yields row objects lazily; integers beyond 2^53 are BigInt', () => {
  const it = db.In('items').Fields('id', 'name').Sort({ id: 1 }).iterate();
  assert.deepEqual(it.next().value, { id: 1, name: 'apple' });
  assert.deepEqual([...it].map((r) => r.id), [2, 3, 4, 5]);
  db.In('nums').Insert({ id: 50, n: 2 ** 53 + 2 }, { id: 51, n: -(2n ** 63n) }, { id: 52, n: 2 ** 53 - 1 }).run();
  assert.deepEqual(db.In('nums').Find({ id: { $in: [50, 51, 52] } }).Sort({ id: 1 }).all().map((r) => r.n),
    [9007199254740994n, -(2n ** 63n), 2 ** 53 - 1]);
  assert.deepEqual(db.In('nums').Find({ n: 9007199254740994n }).all(), [{ id: 50, n: 9007199254740994n }]);
  // A column named like the prototype is an own property, never the prototype.
  const rows = db.In('items').Fields('name as __proto__').Find({ id: 1 }).all();
  assert.equal(Object.getPrototypeOf(rows[0]), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(rows[0], '__proto__').value, 'apple');
});

// Row objects come from a factory generated per column list (lib/codec.js):
// column names are data, never code, whatever characters they hold.
test('row objects: any column name is a plain own property; duplicates keep the last value', () => {
  const names = ['a"b', "c'd", 'e\\f', 'g\nh', '${x}', '`', '}; throw 1; ({', '__proto__', 'constructor', '0', ''];
  const columns = names.map((n, i) => `${i} AS "${n.replaceAll('"', '""')}"`).join(', ');
  db.exec(`CREATE VIEW odd AS SELECT ${columns}`);
  const [row] = db.In('odd').Find({}).all();
  assert.equal(Object.getPrototypeOf(row), Object.prototype);
  assert.deepEqual(Object.keys(row).sort(), [...names].sort());
  for (const [i, n] of names.entries()) assert.equal(Object.getOwnPropertyDescriptor(row, n).value, i, n);
  const dup = db.In('items').Fields('id as x', 'qty as y', 'name as x').Find({ id: 1 });
  assert.deepEqual(dup.all(), [{ x: 'apple', y: 3 }]);
  assert.deepEqual([...dup.iterate()], [{ x: 'apple', y: 3 }]);
});

test('async forms: allAsync, iterateAsync, runAsync, TxAsync', async () => {
  assert.deepEqual(ids(await db.In('items').Fields('id').Find({ tag: 'veg' }).Sort({ id: 1 }).allAsync()), [3, 5]);
  const seen = [];
  for await (const row of db.In('items').Fields('id').Sort({ id: -1 }).Limit(2).iterateAsync()) seen.push(row.id);
  assert.deepEqual(seen, [5, 4]);
  assert.deepEqual(await db.In('log').Insert({ id: 200, msg: 'async' }).runAsync(), { rowsAffected: 1, lastInsertId: 200 });
  assert.equal((await db.TxAsync(db.In('log').Insert({ id: 201, msg: 'a' }), db.In('log').Delete().Find({ id: 200 }))).rowsAffected, 2);
  await assert.rejects(db.In('data').Find({}).allAsync(), (e) => e instanceof DalError && e.code === 'DALSHIM_E_SQL' && e.message === 'no such table: data');
  await assert.rejects(db.In('data').Find({ a: () => 1 }).allAsync(), TypeError);
  // Many at once on the libuv pool: every answer is the right one.
  const all = await Promise.all(Array.from({ length: 64 }, (_, i) => db.In('items').Fields('id').Find({ id: (i % 5) + 1 }).allAsync()));
  assert.deepEqual(all.map((r) => r[0].id), Array.from({ length: 64 }, (_, i) => (i % 5) + 1));
});

test('DAL errors carry their names: invalid requests, unknown columns, other database files', () => {
  assert.throws(() => db.In('items').Find({ id: { $nope: 1 } }).all(),
    (e) => e instanceof DalError && e.code === 'DAL_E_REQUEST' && e.errno === -5 && /\$nope/.test(e.message));
  assert.throws(() => db.In('items; DROP TABLE items').all(), (e) => e.code === 'DAL_E_REQUEST');
  assert.throws(() => db.In('items').Fields('nosuch').all(), (e) => e.code === 'DALSHIM_E_SQL' && /no such column/.test(e.message));
  assert.throws(() => db.In('items').Limit(-1).all(), (e) => e.code === 'DAL_E_REQUEST');
  assert.throws(() => db.In('items').Db('../escape').all(), (e) => e.code === 'DAL_E_REQUEST');
  // Another file in the same directory: created on first use.
  const other = db.In('t').Db('other.sqlite');
  assert.throws(() => other.all(), (e) => e.code === 'DALSHIM_E_SQL' && e.message === 'no such table: t');
  assert.equal(db.In('items').all().length, 5, 'the handle stays usable after errors');
});
