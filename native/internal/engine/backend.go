package engine

import "dalkit/native/internal/query"

// Backend is what a handle runs requests on. The engine owns everything
// before it (the handle's lifecycle and limits on the request, decoding,
// building, the shape cache, counting queries, planted leaks) and the
// backend everything after: databases, connections, statements, and
// encoding the answer. Two implement it:
//
//	sqliteBackend     (this package, sqlite_backend.go)  a data directory of SQLite files in WAL mode
//	postgres.Backend  (internal/postgres)                the schemas of one PostgreSQL database
//
// A backend reports failures of the call as *status.Error (dal.h codes) and
// failures of a statement (a missing table, a constraint) as error
// responses in out, as docs/protocol.md says. Its methods are called from
// many goroutines at once.
type Backend interface {
	// Dialect is the SQL the builder emits for this backend.
	Dialect() query.Dialect

	// Run executes the built request r on the database r.DB names (a file,
	// or a schema) and appends the response to out: the rows of a SELECT,
	// the result of writes, or an error response. On a call failure the
	// returned slice is out as it was.
	Run(r *query.Request, out []byte) ([]byte, error)

	// Exec runs administrative SQL text on database db (dal_exec). The
	// handle has checked its length and that it holds no NUL byte.
	Exec(db, sql []byte) error

	// Close closes every connection. The handle guarantees that no Run or
	// Exec is running and that none starts afterwards.
	Close()
}

// statementLeaker is a backend that can leak prepared statements in a
// database on purpose, for the sqlite_stmt planted leak.
type statementLeaker interface {
	LeakStatements(db []byte, n int64) int64
}

// connectionLeaker is a backend that can leak a server connection on
// purpose, for the connection planted leak (postgres.Backend).
type connectionLeaker interface {
	LeakConnection() bool
}

// plantTarget is the database of one request as the planted leaks see it
// (planted.Target). A backend without a plant of the kind asked for was
// refused at open (Options.checkBackend).
type plantTarget struct {
	be Backend
	db []byte
}

func (t plantTarget) LeakStatements(n int64) int64 {
	if l, ok := t.be.(statementLeaker); ok {
		return l.LeakStatements(t.db, n)
	}
	return 0
}

func (t plantTarget) LeakConnection() {
	if l, ok := t.be.(connectionLeaker); ok {
		l.LeakConnection()
	}
}
