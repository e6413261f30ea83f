// postgres-flags.test.js -- the parts of --postgres that need no server
// (the runs are tests/stress/check_postgres.py, label postgres): the
// {"$backend": ...} template, the flag's checks in the JS drivers and in
// stress:compare (--backends), the variants and child command lines it
// makes, and URLs shown without their password.
import assert from 'node:assert/strict';
import { dirname, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { parseOptions as parseCompare } from '../../stress/compare/options.js';
import { command, variants } from '../../stress/compare/paths.js';
import { parseOptions, UsageError } from '../../stress/js/options.js';
import { redactedArgs, redactedUrl, runSchemaName } from '../../stress/js/postgres.js';
import { forBackend } from '../../stress/js/workload-backend.js';
import { WorkloadError, loadWorkload } from '../../stress/js/workload-spec.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

test('$backend: the run backend\'s branch, anywhere; every backend given, nothing else beside it', () => {
  const file = { a: [{ $backend: { sqlite: 1, postgres: { b: { $backend: { sqlite: 'x', postgres: 'y' } } } } }] };
  assert.deepEqual(forBackend(file, 'sqlite'), { a: [1] });
  assert.deepEqual(forBackend(file, 'postgres'), { a: [{ b: 'y' }] });
  for (const [bad, why] of [
    [{ $backend: { sqlite: 1 } }, /\$backend\.postgres: missing/],
    [{ $backend: { sqlite: 1, postgres: 2, mysql: 3 } }, /\$backend\.mysql: unknown backend/],
    [{ $backend: { sqlite: 1, postgres: 2 }, x: 1 }, /takes no other key/],
    [{ $backend: [1, 2] }, /expected an object of sqlite, postgres/],
  ]) assert.throws(() => forBackend({ v: bad }, 'sqlite'), (e) => e instanceof WorkloadError && why.test(e.message));
  assert.throws(() => forBackend({}, 'mysql'), /unknown backend "mysql"/);
  // A "__proto__" key stays a key of the map.
  assert.deepEqual(Object.keys(forBackend(JSON.parse('{"__proto__": 1}'), 'sqlite')), ['__proto__']);
});

test('the shipped workloads on PostgreSQL: its answers and the run\'s schema as db', () => {
  const ref = loadWorkload('reference', { backend: 'postgres', db: 'run_s' });
  assert.equal(ref.db, 'run_s');
  assert.equal(ref.query(0, 0).expect.e, 'relation "data" does not exist');
  assert.equal(loadWorkload('reference').query(0, 0).expect.e, 'no such table: data');
  for (const name of ['rows', 'write', 'mixed']) {
    const [seed] = loadWorkload(name, { backend: 'postgres' }).seedQueries();
    assert.equal(seed.expect.li, 0, `${name}: PostgreSQL has no rowid`);
  }
});

test('--postgres: local or a postgres:// URL; not with --db-dir or --target; the password never shown', () => {
  assert.equal(parseOptions(['--postgres', 'local']).backend, 'postgres');
  assert.equal(parseOptions([]).backend, 'sqlite');
  assert.equal(parseOptions(['--postgres', 'postgresql://h/db']).postgres, 'postgresql://h/db');
  const refused = (argv, why) => assert.throws(() => parseOptions(argv), (e) => e instanceof UsageError && why.test(e.message)
    && !e.message.includes('hunter2'), argv.join(' '));
  refused(['--postgres', 'mysql://u:hunter2@h/db'], /expected local or a postgres:\/\/ URL, got 'mysql:\/\/u:\*\*\*@h\/db'/);
  refused(['--postgres', 'local', '--db-dir', '/tmp/x'], /--postgres and --db-dir: give one/);
  refused(['--postgres', 'local', '--target', 'x.mjs'], /--postgres is for the DAL's workloads/);
  assert.equal(redactedUrl('postgres://u:p@ss@h:5/db?x=1'), 'postgres://u:***@h:5/db?x=1');
  assert.equal(redactedUrl('postgres://u@h/db'), 'postgres://u@h/db');
  assert.deepEqual(redactedArgs(['--postgres', 'postgres://u:pw@h/db']), ['--postgres', 'postgres://u:***@h/db']);
  assert.match(runSchemaName(), /^dalstress_[0-9]+_[0-9a-z]+$/);
});

test('stress:compare --backends: a variant per backend, named, the postgres ones given --postgres', () => {
  const o = parseCompare(['--paths', 'node-addon', '--backends', 'sqlite,postgres', '--postgres', 'postgres://h/db'], root);
  const vs = variants(o);
  assert.deepEqual(vs.map((v) => v.name), ['node-addon@sqlite', 'node-addon@postgres']);
  const args = vs.map((v) => command(v, o, root, '/tmp/r.json').argv);
  assert.ok(!args[0].includes('--postgres'));
  assert.deepEqual(args[1].slice(args[1].indexOf('--postgres'), args[1].indexOf('--postgres') + 2), ['--postgres', 'postgres://h/db']);
  assert.deepEqual(variants(parseCompare(['--paths', 'node-addon'], root)).map((v) => v.name), ['node-addon']);
  assert.deepEqual(parseCompare(['--postgres', 'local'], root).backends, ['postgres']);
  for (const [argv, why] of [
    [['--backends', 'postgres'], /postgres needs --postgres URL\|local/],
    [['--backends', 'mysql'], /unknown backend 'mysql'/],
    [['--backends', 'sqlite', '--postgres', 'local'], /no postgres in --backends/],
  ]) assert.throws(() => parseCompare(argv, root), why);
});
