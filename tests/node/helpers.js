// helpers.js -- shared by the node:test files: temporary data directories
// with tables (the DAL has no DDL, so tables are created with SQLite first,
// through better-sqlite3 -- a devDependency -- the way tests/shim uses the
// system SQLite), and the paths of this build.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(prefix = 'dalkit-node-test-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Run DDL on dir/db (default database.sqlite) with SQLite directly, then close it. */
export function createTables(dir, sql, db = 'database.sqlite') {
  const Sqlite = require('better-sqlite3');
  const s = new Sqlite(join(dir, db));
  try {
    s.pragma('journal_mode = WAL');
    s.exec(sql);
  } finally {
    s.close();
  }
}

export const hex = (b) => Buffer.from(b).toString('hex');
