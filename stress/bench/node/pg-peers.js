// pg-peers.js -- the DAL on PostgreSQL through the Node addon against what
// Node users pick today for PostgreSQL, node-postgres (`pg`) and porsager's
// `postgres`, on the same server, tables and SQL; and reads with the
// primary alone against the primary plus a streaming replica. Interleaved
// rounds, medians. Reported, not tested (docs/benchmarks.md, issue 18).
//
//   rows10   10 of 10,000 rows by an indexed key, one query in flight: the
//            addon's sync builder and its async form against `pg` (a named
//            prepared statement) and `postgres` (its prepared statements),
//            each on one connection.
//   mixed    one in flight, a cycle of a 10-row read, an insert, an update
//            by key, a query of a missing table (an error answer) and a
//            delete: the shape of stress/workloads/mixed.json.
//   replica  reads in flight at once (--in-flight, default 8) through the
//            addon's async form, with the pool on the primary alone against
//            replicas=<the standby> with read_primary=1 (both take reads).
//
// It needs a server: run it under the throwaway cluster of the tests, which
// sets DALKIT_PG_URL (and DALKIT_PG_REPLICA_URL for the replica rounds):
//
//   scripts/lib/pg-cluster.sh run -- node stress/bench/node/pg-peers.js [--rounds 3] [--queries 20000]
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import process from 'node:process';

import { argInt, fmt, interleave, rate, root } from './common.js';

const require = createRequire(import.meta.url);
const { open } = await import('../../../lib/index.js');
const pg = require('pg');
const postgres = require('postgres');
// `postgres` exports no package.json: read the installed one.
const version = (pkg) => JSON.parse(readFileSync(join(root, 'node_modules', pkg, 'package.json'), 'utf8')).version;
const versions = { pg: version('pg'), postgres: version('postgres') };

const url = process.env.DALKIT_PG_URL;
const replicaUrl = process.env.DALKIT_PG_REPLICA_URL;
if (!url) {
  console.error('pg-peers.js: DALKIT_PG_URL is not set; run it as\n' +
    '  scripts/lib/pg-cluster.sh run -- node stress/bench/node/pg-peers.js');
  process.exit(2);
}
const rounds = argInt('--rounds', 3);
const n = argInt('--queries', 20000);
const inFlight = argInt('--in-flight', 8);
const GROUPS = 1000;
const SCHEMA = 'bench'; // the DAL's db names a schema (protocol.md, "On PostgreSQL")
const check = (ok, what) => { if (!ok) throw new Error(`wrong answer: ${what}`); };

// The table, seeded by pg in one statement; its types are those both
// backends read the same way (protocol.md: bigint, double precision).
const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE; CREATE SCHEMA ${SCHEMA};
  CREATE TABLE ${SCHEMA}.items (id bigint PRIMARY KEY, grp bigint NOT NULL, name text NOT NULL,
    qty bigint NOT NULL, price double precision NOT NULL);
  CREATE INDEX items_grp ON ${SCHEMA}.items (grp);
  INSERT INTO ${SCHEMA}.items SELECT x, (x - 1) / 10, 'item-' || x, x * 7 % 100, x * 1.25
    FROM generate_series(1, ${GROUPS * 10}) x;
  ANALYZE ${SCHEMA}.items;`);
await admin.end();

const dal = open({ dir: url, db: SCHEMA });
const client = new pg.Client({ connectionString: url });
await client.connect();
const sql = postgres(url, { max: 1, prepare: true, onnotice: () => {} });

// The SQL the DAL builds for these builder calls, for the peers.
const ROWS = `SELECT * FROM ${SCHEMA}.items WHERE grp = $1`;
const rowsPg = (g) => client.query({ name: 'rows', text: ROWS, values: [g] });
const key = (i) => i % GROUPS;

const rows10 = await interleave({
  'pg (prepared)': () => rate(n, async (i) => check((await rowsPg(key(i))).rows.length === 10, 'pg rows')),
  'postgres (prepared)': () => rate(n, async (i) =>
    check((await sql`SELECT * FROM bench.items WHERE grp = ${key(i)}`).length === 10, 'postgres rows')),
  'addon builder, sync': () => rate(n, (i) => check(dal.In('items').Find({ grp: key(i) }).all().length === 10, 'addon rows')),
  'addon builder, async': () => rate(n, async (i) =>
    check((await dal.In('items').Find({ grp: key(i) }).allAsync()).length === 10, 'addon rows')),
}, rounds);

// mixed: 5 queries per cycle; ids above the seed, one per cycle, removed
// by the cycle's own delete so every round starts from the seeded table.
let next = 1_000_000;
const missing = (e) => /relation "bench.nope" does not exist|relation "nope" does not exist/.test(e.message);
const mixed = await interleave({
  'pg (prepared)': () => rate(n / 5, async (i) => {
    const id = next++;
    check((await rowsPg(key(i))).rows.length === 10, 'pg rows');
    check((await client.query({ name: 'ins', text: `INSERT INTO ${SCHEMA}.items VALUES ($1, -1, 'mixed', 0, 0.5)`, values: [id] })).rowCount === 1, 'pg insert');
    check((await client.query({ name: 'upd', text: `UPDATE ${SCHEMA}.items SET qty = qty + 1 WHERE id = $1`, values: [id] })).rowCount === 1, 'pg update');
    try { await client.query(`SELECT * FROM ${SCHEMA}.nope WHERE a = 1`); check(false, 'pg error'); } catch (e) { check(missing(e), e.message); }
    check((await client.query({ name: 'del', text: `DELETE FROM ${SCHEMA}.items WHERE id = $1`, values: [id] })).rowCount === 1, 'pg delete');
  }),
  'postgres (prepared)': () => rate(n / 5, async (i) => {
    const id = next++;
    check((await sql`SELECT * FROM bench.items WHERE grp = ${key(i)}`).length === 10, 'postgres rows');
    check((await sql`INSERT INTO bench.items VALUES (${id}, -1, 'mixed', 0, 0.5)`).count === 1, 'postgres insert');
    check((await sql`UPDATE bench.items SET qty = qty + 1 WHERE id = ${id}`).count === 1, 'postgres update');
    try { await sql`SELECT * FROM bench.nope WHERE a = 1`; check(false, 'postgres error'); } catch (e) { check(missing(e), e.message); }
    check((await sql`DELETE FROM bench.items WHERE id = ${id}`).count === 1, 'postgres delete');
  }),
  'addon builder, sync': () => rate(n / 5, (i) => {
    const id = next++;
    check(dal.In('items').Find({ grp: key(i) }).all().length === 10, 'addon rows');
    check(dal.In('items').Insert({ id, grp: -1, name: 'mixed', qty: 0, price: 0.5 }).run().rowsAffected === 1, 'addon insert');
    check(dal.In('items').Set({ qty: 1 }).Find({ id }).run().rowsAffected === 1, 'addon update');
    try { dal.In('nope').Find({ a: 1 }).all(); check(false, 'addon error'); } catch (e) { check(missing(e), e.message); }
    check(dal.In('items').Delete().Find({ id }).run().rowsAffected === 1, 'addon delete');
  }),
  'addon builder, async': () => rate(n / 5, async (i) => {
    const id = next++;
    check((await dal.In('items').Find({ grp: key(i) }).allAsync()).length === 10, 'addon rows');
    check((await dal.In('items').Insert({ id, grp: -1, name: 'mixed', qty: 0, price: 0.5 }).runAsync()).rowsAffected === 1, 'addon insert');
    check((await dal.In('items').Set({ qty: 1 }).Find({ id }).runAsync()).rowsAffected === 1, 'addon update');
    try { await dal.In('nope').Find({ a: 1 }).allAsync(); check(false, 'addon error'); } catch (e) { check(missing(e), e.message); }
    check((await dal.In('items').Delete().Find({ id }).runAsync()).rowsAffected === 1, 'addon delete');
  }),
}, rounds);

// Reads per second with `inFlight` reads outstanding at all times.
async function concurrentReads(db) {
  let issued = 0;
  const t0 = performance.now();
  const lane = async () => {
    while (issued < n) {
      const g = key(issued++);
      check((await db.In('items').Find({ grp: g }).allAsync()).length === 10, 'replica rows');
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return n / ((performance.now() - t0) / 1000);
}

let replica = null;
if (replicaUrl) {
  // The seed must have reached the standby before it serves reads.
  const standby = new pg.Client({ connectionString: replicaUrl });
  await standby.connect();
  for (let t = 0; ; t++) {
    const r = await standby.query(`SELECT count(*)::int AS c FROM ${SCHEMA}.items`).catch(() => ({ rows: [{ c: 0 }] }));
    if (r.rows[0].c >= GROUPS * 10) break;
    if (t > 200) throw new Error('the replica did not catch up in 20 s');
    await new Promise((ok) => setTimeout(ok, 100));
  }
  await standby.end();
  const primaryOnly = open({ dir: url, db: SCHEMA, options: `pool_size=${inFlight}` });
  const withReplica = open({ dir: url, db: SCHEMA, options: `pool_size=${inFlight};replicas=${replicaUrl};read_primary=1` });
  replica = await interleave({
    'primary alone': () => concurrentReads(primaryOnly),
    'primary + 1 replica': () => concurrentReads(withReplica),
  }, rounds);
  primaryOnly.close();
  withReplica.close();
}

dal.close();
await client.end();
await sql.end();

console.log(`node ${process.version}, pg ${versions.pg}, postgres ${versions.postgres}; ` +
  `${rounds} rounds x ${fmt(n)} queries; medians; load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')}`);
const faster = (res) => Math.max(res['pg (prepared)'].median, res['postgres (prepared)'].median);
for (const [title, res] of [['rows10 (10 rows by an indexed key)', rows10], ['mixed (5 statements per cycle; queries/s counts statements)', mixed]]) {
  console.log(`\n${title}\n| path | queries/s | µs/query | vs the faster peer |\n|---|---:|---:|---:|`);
  for (const [name, { median: c }] of Object.entries(res)) {
    const q = res === mixed ? c * 5 : c;
    const base = res === mixed ? faster(res) * 5 : faster(res);
    console.log(`| ${name} | ${fmt(q)} | ${(1e6 / q).toFixed(1)} | ${(q / base).toFixed(2)}x |`);
  }
}
if (replica) {
  console.log(`\nreplica (${inFlight} reads in flight, addon async)\n| pools | reads/s | vs primary alone |\n|---|---:|---:|`);
  for (const [name, { median: q }] of Object.entries(replica)) {
    console.log(`| ${name} | ${fmt(q)} | ${(q / replica['primary alone'].median).toFixed(2)}x |`);
  }
} else {
  console.log('\n(no DALKIT_PG_REPLICA_URL: replica rounds not run)');
}
