// better-sqlite3.js -- the Node addon against better-sqlite3 12.11.1 doing
// the same SQL on the same database file, interleaved rounds, medians.
// Reported, not tested.
//
//   reference  the study's query on a database without table "data": every
//              query ends in "no such table: data".  better-sqlite3 prepares
//              per query (an ad-hoc query); the addon sends the builder query
//              (the DAL prepares or takes its statement cache).
//   rows10     10 rows from an indexed table: better-sqlite3 with a cached
//              statement (prepared once), the addon through the builder and
//              as fixed request bytes through queryInto.
//
//   node stress/bench/node/better-sqlite3.js [--rounds 5] [--queries 100000]
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { argInt, fmt, interleave, rate } from './common.js';

const { open } = await import('../../../lib/index.js');
const { REFERENCE_REQUEST, REFERENCE_RESPONSE } = await import('../../js/workload.js');
const Sqlite = createRequire(import.meta.url)('better-sqlite3');
const version = createRequire(import.meta.url)('better-sqlite3/package.json').version;

const rounds = argInt('--rounds', 5);
const n = argInt('--queries', 100000);
const GROUPS = 1000;
const dir = mkdtempSync(join(tmpdir(), 'dalkit-bench-bsq-'));
const file = join(dir, 'database.sqlite');

const bsq = new Sqlite(file);
bsq.pragma('journal_mode = WAL');
bsq.pragma('synchronous = NORMAL'); // the DAL's default (dal.h)
bsq.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, grp INTEGER NOT NULL, name TEXT, qty INTEGER, price REAL);' +
  'CREATE INDEX items_grp ON items (grp);');
const ins = bsq.prepare('INSERT INTO items (grp, name, qty, price) VALUES (?, ?, ?, ?)');
bsq.transaction(() => {
  for (let g = 0; g < GROUPS; g++) for (let k = 0; k < 10; k++) ins.run(g, `item-${g}-${k}`, k, k * 1.5);
})();

const db = open({ dir });
const target = new Uint8Array(4096);
const REF_SQL = 'SELECT * FROM "data" WHERE "a" = ? AND "b" > ?'; // what the DAL builds (protocol.md)
const ROWS_SQL = 'SELECT * FROM "items" WHERE "grp" = ?';
const rowsStmt = bsq.prepare(ROWS_SQL);
const check = (ok) => { if (!ok) throw new Error('wrong answer'); };
const rowsRequest = db.encode(db.In('items').Find({ grp: 7 }), 1);
const rowsResponseLength = db.queryRaw(rowsRequest).length;

const reference = await interleave({
  'better-sqlite3 prepare per query': () => rate(n, () => {
    try { bsq.prepare(REF_SQL).all(1, 2); } catch (e) { check(e.message === 'no such table: data'); return; }
    check(false);
  }),
  'addon builder': () => rate(n, () => {
    try { db.In('data').Find({ a: 1, b: { $gt: 2 } }).all(); } catch (e) { check(e.code === 'DALSHIM_E_SQL'); return; }
    check(false);
  }),
  'addon into': () => rate(n, () => check(db.queryInto(REFERENCE_REQUEST, target) === REFERENCE_RESPONSE.length)),
}, rounds);

const rows10 = await interleave({
  'better-sqlite3 cached statement': () => rate(n, (i) => check(rowsStmt.all(i % GROUPS).length === 10)),
  'addon builder': () => rate(n, (i) => check(db.In('items').Find({ grp: i % GROUPS }).all().length === 10)),
  // The same rows request as fixed bytes: the DAL and the boundary without
  // the builder, the codec and row objects.
  'addon into': () => rate(n, () => check(db.queryInto(rowsRequest, target) === rowsResponseLength)),
}, rounds);

db.close();
bsq.close();
rmSync(dir, { recursive: true, force: true });

console.log(`node ${process.version}, better-sqlite3 ${version}; ${rounds} rounds x ${fmt(n)} queries; medians`);
for (const [title, res, base] of [['reference (no such table)', reference, 'better-sqlite3 prepare per query'],
  ['rows10 (10 rows, indexed)', rows10, 'better-sqlite3 cached statement']]) {
  console.log(`\n${title}\n| path | queries/s | µs/query | vs better-sqlite3 |\n|---|---:|---:|---:|`);
  for (const [name, { median: q }] of Object.entries(res)) {
    console.log(`| ${name} | ${fmt(q)} | ${(1e6 / q).toFixed(2)} | ${(q / res[base].median).toFixed(2)}x |`);
  }
}
