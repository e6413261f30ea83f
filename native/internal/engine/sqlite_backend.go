package engine

import (
	"fmt"
	"os"
	"path/filepath"

	"dalkit/native/internal/query"
	"dalkit/native/internal/sqlite"
)

// sqliteBackend is a data directory of SQLite databases: one file per db
// name, each with one writer connection and a pool of readers under WAL
// (database.go), at most max_databases of them open (databases.go).
type sqliteBackend struct {
	opts *Options
	dbs  databaseSet
}

// openSQLite checks the data directory and settles SQLite's configuration.
func openSQLite(dataDir string, opts *Options) (*sqliteBackend, error) {
	if dataDir == "" {
		return nil, errorf(EDatabase, "data directory is empty")
	}
	abs, err := filepath.Abs(dataDir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return nil, errorf(EDatabase, fmt.Sprintf("data directory %q: %v", dataDir, err))
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, errorf(EDatabase, fmt.Sprintf("data directory %q is not a directory", dataDir))
	}
	// Settle the process's SQLite configuration now, before the host's
	// next SQLite call could initialize the library without it: databases
	// open their connections only on first use (internal/sqlite, config.c).
	sqlite.Configuration()
	b := &sqliteBackend{opts: opts}
	b.dbs.init(abs, opts)
	return b, nil
}

func (b *sqliteBackend) Dialect() query.Dialect { return query.SQLite }

func (b *sqliteBackend) Run(r *query.Request, out []byte) ([]byte, error) {
	d, err := b.dbs.acquire(r.DB)
	if err != nil {
		return out, err
	}
	defer b.dbs.release(d)
	return b.execute(d, r, out)
}

// execute runs a built request: a lone SELECT on a reader connection,
// anything else on the writer.
func (b *sqliteBackend) execute(d *database, r *query.Request, out []byte) ([]byte, error) {
	if !r.Tx && r.Stmts[0].Kind == query.Select {
		c, err := d.acquireReader()
		if err != nil {
			return out, err
		}
		defer d.releaseReader(c)
		c.db.ArmTimeLimit()
		st := stepper{c: c, req: r, opts: b.opts}
		return st.selectRows(&r.Stmts[0], out)
	}
	c, err := d.lockWriter()
	if err != nil {
		return out, err
	}
	defer d.unlockWriter()
	c.db.ArmTimeLimit()
	st := stepper{c: c, req: r, opts: b.opts}
	return st.writes(out)
}

func (b *sqliteBackend) Close() { b.dbs.closeAll() }

// LeakStatements leaks n bytes of prepared statements in database db, for
// the sqlite_stmt plant.
func (b *sqliteBackend) LeakStatements(db []byte, n int64) int64 {
	d, err := b.dbs.acquire(db)
	if err != nil {
		return 0
	}
	defer b.dbs.release(d)
	return d.LeakStatements(n)
}
