// stress/bench/ffi/bun-sqlite.js -- Bun FFI (ffi/bun.js) against bun:sqlite doing
// the same SQL on the same database files, in one Bun process.  Prints one
// JSON line per measurement.  Run by stress/bench/ffi/run.mjs (bun only).
//
//   reference  the reference query: the DAL's request (SELECT * FROM "data"
//              WHERE "a" = ? AND "b" > ?, no such table) vs bun:sqlite
//              preparing that SQL per query (db.prepare, no statement cache),
//              as an ad-hoc query does; both end in "no such table: data".
//   rows       10 rows from a 1,000-row table through an index: the builder
//              vs a cached bun:sqlite statement (db.query) .all(g).
//
//   args: DIR QUERIES [ROUNDS]   (ROUNDS interleaved rounds of every path,
//   default 1; each path's median round is printed)
import { Database } from 'bun:sqlite';
import { join } from 'node:path';
import process from 'node:process';

import { CODES } from '../../../ffi/abi.js';
import { open } from '../../../ffi/bun.js';
import { REFERENCE_REQUEST } from '../../js/workload.js';

const [dir, queriesText, roundsText] = process.argv.slice(2);
const queries = Number(queriesText);
const rounds = Number(roundsText ?? 1);
const REF_SQL = 'SELECT * FROM "data" WHERE "a" = ? AND "b" > ?';
const ROWS_SQL = 'SELECT * FROM "items" WHERE "grp" = ?';
const GROUPS = 100;

// rows.sqlite: 1,000 rows in 100 groups of 10, indexed by grp.
const setup = new Database(join(dir, 'rows.sqlite'));
setup.run('CREATE TABLE IF NOT EXISTS items (id INTEGER PRIMARY KEY, grp INTEGER, name TEXT, score REAL)');
setup.run('CREATE INDEX IF NOT EXISTS items_grp ON items (grp)');
if (setup.query('SELECT count(*) AS n FROM items').get().n === 0) {
  const ins = setup.prepare('INSERT INTO items (grp, name, score) VALUES (?, ?, ?)');
  setup.transaction(() => { for (let i = 0; i < 1000; i++) ins.run(i % GROUPS, `name ${i}`, i / 7); })();
}
setup.close();

// Every path's loop, in the order given; run() times them in interleaved
// rounds and prints each path's median round.
const paths = [];
const time = (path, n, one) => paths.push({ path, n, one, seconds: [] });
function run() {
  for (const { n, one } of paths) for (let i = 0; i < Math.min(20000, n); i++) one(i); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const p of paths) {
      const t0 = performance.now();
      for (let i = 0; i < p.n; i++) p.one(i);
      p.seconds.push((performance.now() - t0) / 1000);
    }
  }
  for (const { path, n, seconds: all } of paths) {
    const seconds = [...all].sort((x, y) => x - y)[all.length >> 1];
    process.stdout.write(`${JSON.stringify({ path, queries: n, seconds, qps: n / seconds, usPerQuery: (seconds * 1e6) / n })}\n`);
  }
}

const ffi = open({ dir });
const lite = new Database(join(dir, 'database.sqlite'));
const liteRows = new Database(join(dir, 'rows.sqlite'));
const t = new Uint8Array(4096);

time('reference: bun ffi into', queries, () => {
  if (ffi.queryInto(REFERENCE_REQUEST, t) !== 34) throw new Error('wrong answer');
});
time('reference: bun ffi builder', queries, () => {
  try { ffi.In('data').Find({ a: 1, b: { $gt: 2 } }).all(); } catch (e) { if (e.errno !== CODES.DALSHIM_E_SQL) throw e; return; }
  throw new Error('expected "no such table"');
});
time('reference: bun:sqlite prepare per query', queries, () => {
  try { lite.prepare(REF_SQL).all(1, 2); } catch (e) { if (!/no such table/.test(e.message)) throw e; return; }
  throw new Error('expected "no such table"');
});

const rowsDb = ffi.use('rows.sqlite');
time('rows: bun ffi builder, 10 of 1,000 (index)', queries, (i) => {
  if (rowsDb.In('items').Find({ grp: i % GROUPS }).all().length !== 10) throw new Error('wrong answer');
});
// The same rows request as fixed bytes through queryInto: what the DAL and
// the boundary cost without the builder, msgpackr and row objects.
const rowsReq = rowsDb.encode(rowsDb.In('items').Find({ grp: 7 }), 1);
time('rows: bun ffi into (request bytes, no decode)', queries, () => {
  const n = ffi.queryInto(rowsReq, t);
  if (n < 100 || n > t.length) throw new Error('wrong answer');
});
const cached = liteRows.query(ROWS_SQL);
time('rows: bun:sqlite cached statement, 10 of 1,000 (index)', queries, (i) => {
  if (cached.all(i % GROUPS).length !== 10) throw new Error('wrong answer');
});

run();
ffi.close();
lite.close();
liteRows.close();
