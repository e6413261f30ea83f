// better-sqlite3.mjs -- a --target (docs/targets.md): a prepared-statement
// loop on a temporary SQLite database through better-sqlite3, a native
// N-API addon.  Clean: must be NO LEAK on every layer.
//
//   npm run stress -- --target stress/targets/better-sqlite3.mjs --iterations 1000000
//
// Each iteration runs three prepared statements: a point read, an update of
// that row and a 10-row range read, every answer checked.
//
// Under Bun, better-sqlite3 does not load: Bun refuses it by name
// ("'better-sqlite3' is not yet supported in Bun", ERR_DLOPEN_FAILED,
// oven-sh/bun#4290; measured with Bun 1.4.5).  This target then runs the same
// statements through bun:sqlite, whose API has the same shape, and its name
// says so, so that a report never claims to have stressed better-sqlite3 in
// Bun.
import { join } from 'node:path';

const ROWS = 1000;

async function openDatabase(file, runtime) {
  if (runtime === 'bun') {
    const { Database } = await import('bun:sqlite');
    return new Database(file);
  }
  const { default: Database } = await import('better-sqlite3');
  return new Database(file);
}

const isBun = typeof Bun !== 'undefined';

/** @type {import('../../lib/index.js').Target<object>} */
export default {
  name: isBun ? 'prepared statements, bun:sqlite (better-sqlite3 does not load in Bun)' : 'better-sqlite3 prepared statements',

  async setup(ctx) {
    const db = await openDatabase(join(ctx.dir, 'target.sqlite'), ctx.runtime);
    db.exec('PRAGMA journal_mode = WAL');
    // better-sqlite3's build default in WAL mode; said explicitly so that
    // bun:sqlite (the system SQLite: FULL, an fsync per commit) runs the
    // same loop at the same cost.
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, hits INTEGER NOT NULL)');
    const insert = db.prepare('INSERT INTO items (id, name, hits) VALUES (?, ?, 0)');
    db.exec('BEGIN');
    for (let id = 1; id <= ROWS; id++) insert.run(id, `item ${id}`);
    db.exec('COMMIT');
    return {
      db,
      get: db.prepare('SELECT id, name, hits FROM items WHERE id = ?'),
      hit: db.prepare('UPDATE items SET hits = hits + 1 WHERE id = ?'),
      range: db.prepare('SELECT id, name FROM items WHERE id >= ? ORDER BY id LIMIT 10'),
    };
  },

  iteration(s, i) {
    const id = (i % ROWS) + 1;
    const row = s.get.get(id);
    if (!row || row.id !== id || row.name !== `item ${id}`) throw new Error(`wrong row for id ${id}: ${JSON.stringify(row)}`);
    s.hit.run(id);
    const from = (i % (ROWS - 10)) + 1;
    const rows = s.range.all(from);
    if (rows.length !== 10 || rows[0].id !== from || rows[9].id !== from + 9) {
      throw new Error(`range from ${from}: ${rows.length} rows, first ${rows[0]?.id}`);
    }
  },

  teardown(s) {
    s.db.close();
  },
};
