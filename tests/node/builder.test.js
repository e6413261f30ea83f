// The query builder alone (lib/builder.js): no addon, no database.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Query, METHOD_ORDER } from '../../lib/builder.js';

test('commands come out in the canonical order whatever the call order', () => {
  const q = new Query().Limit(5).Sort({ a: -1 }).Fields('a', 'b').Find({ a: 1 }).In('t', 'x').Offset(2)
    .Group('a').Join({ $for: 'u', $do: { 'u.id': 'x.a' } });
  assert.deepEqual(q.toCommands().map((c) => c.method), ['In', 'Find', 'Fields', 'Join', 'Group', 'Sort', 'Limit', 'Offset']);
  assert.deepEqual(METHOD_ORDER.slice(0, 8), ['In', 'Find', 'Fields', 'Join', 'Group', 'Sort', 'Limit', 'Offset']);
  const w = new Query().DoUpdate('v').OnConflict('k').Insert({ k: 1, v: 2 }).In('kv');
  assert.deepEqual(w.toCommands().map((c) => c.method), ['In', 'Insert', 'OnConflict', 'DoUpdate']);
});

test('request(id) is the protocol envelope; args are what was passed', () => {
  const filter = { a: 1, b: { $gt: 2 } };
  const q = new Query().In('data').Find(filter);
  assert.deepEqual(q.request(9), {
    id: 9, db: 'database.sqlite',
    commands: [{ method: 'In', args: ['data'] }, { method: 'Find', args: [filter] }],
  });
  assert.equal(q.request(1).commands[1].args[0], filter, 'values are referenced, not copied');
  assert.deepEqual(new Query().In('t').Db('other.sqlite').request(3).db, 'other.sqlite');
  assert.deepEqual(new Query().In('t', 'x').toCommands()[0].args, ['t', 'x']);
  assert.deepEqual(new Query().In('t').Select('a', 'count(*) as n').toCommands()[1], { method: 'Fields', args: ['a', 'count(*) as n'] });
  assert.deepEqual(new Query().In('t').Delete().toCommands()[1], { method: 'Delete', args: [] });
  assert.deepEqual(new Query().In('t').Insert({ a: 1 }).OnConflict().DoNothing().toCommands().slice(1),
    [{ method: 'Insert', args: [{ a: 1 }] }, { method: 'OnConflict', args: [] }, { method: 'DoNothing', args: [] }]);
});

test('builder methods return new queries: a base query can be reused', () => {
  const base = new Query().In('users');
  const one = base.Find({ id: 1 });
  const two = base.Find({ id: 2 }).Limit(1);
  assert.deepEqual(base.toCommands(), [{ method: 'In', args: ['users'] }]);
  assert.deepEqual(one.toCommands()[1].args, [{ id: 1 }]);
  assert.deepEqual(two.toCommands().map((c) => c.method), ['In', 'Find', 'Limit']);
  // A second call replaces the first, as in the C++ builder.
  assert.deepEqual(one.Find({ id: 3 }).toCommands()[1].args, [{ id: 3 }]);
  assert.equal(one.toCommands().length, 2);
});

test('wrong arity is a TypeError naming the method', () => {
  assert.throws(() => new Query().In(), { name: 'TypeError', message: /In\(\) takes 1 to 2 arguments, got 0/ });
  assert.throws(() => new Query().In('a', 'b', 'c'), TypeError);
  assert.throws(() => new Query().Find(), { message: /Find\(\) takes 1 argument, got 0/ });
  assert.throws(() => new Query().Find({}, {}), TypeError);
  assert.throws(() => new Query().Fields(), { message: /Fields\(\) takes at least 1 argument/ });
  assert.throws(() => new Query().Limit(), TypeError);
  assert.throws(() => new Query().Delete(1), { message: /Delete\(\) takes 0 arguments, got 1/ });
  assert.throws(() => new Query().DoNothing(true), TypeError);
  assert.throws(() => new Query().Insert(), TypeError);
});

test('terminal operations need a database and the right statement kind', () => {
  assert.throws(() => new Query().In('t').all(), { name: 'TypeError', message: /has no database/ });
  const session = { all: () => 'rows', run: () => 'exec' };
  const sel = new Query(session).In('t');
  assert.equal(sel.all(), 'rows');
  assert.throws(() => sel.run(), { name: 'TypeError', message: /this is a SELECT/ });
  const ins = new Query(session).In('t').Insert({ a: 1 });
  assert.equal(ins.run(), 'exec');
  assert.throws(() => ins.all(), { name: 'TypeError', message: /Insert statement: use run\(\)/ });
  return assert.rejects(() => sel.runAsync(), TypeError);
});

test('Query.tx builds one Tx command of write statements', () => {
  const a = new Query().In('kv').Insert({ k: 'x', v: 1 });
  const b = new Query().In('log').Set({ n: 2 }).Find({ id: 1 });
  const tx = Query.tx(null, 'database.sqlite', [a, b]);
  assert.deepEqual(tx.toCommands(), [{ method: 'Tx', args: [a.toCommands(), b.toCommands()] }]);
  assert.throws(() => Query.tx(null, 'd', []), /at least one statement/);
  assert.throws(() => Query.tx(null, 'd', [new Query().In('t')]), /not an Insert, Set or Delete/);
  assert.throws(() => Query.tx(null, 'd', [new Query().Insert({ a: 1 })]), /has no In/);
  assert.throws(() => Query.tx(null, 'd', [{}]), /not a Query/);
});
