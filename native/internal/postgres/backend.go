// Package postgres is the DAL's PostgreSQL backend: the engine's Backend
// (internal/engine/backend.go) over one PostgreSQL database, through pgx's
// connection pool (pure Go, no libpq). A request's db names a schema of
// that database (schema.go); requests are built in the PostgreSQL dialect
// (internal/query/dialect.go) and run as statements prepared once per
// connection and schema (conn.go), with parameters in text form
// (params.go) and rows encoded as SQLite's would be (rows.go).
//
// It works at pgconn's level (the wire protocol), not through pgx's
// database/sql-like API: the DAL already holds the SQL text, the values
// and the exact response bytes it must produce, and in between it needs
// only the server's description of each statement.
package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"dalkit/native/internal/query"
	"dalkit/native/internal/status"
)

// Backend is one PostgreSQL database: a pool of connections to it, and
// the schemas its requests name.
type Backend struct {
	cfg     Config
	where   string // host:port/database, for messages
	secrets secrets
	pool    *pgxpool.Pool
	schemas schemaSet
}

// answerGraceMs is how long past max_query_ms a call waits for the server:
// statement_timeout ends a slow statement there, and its answer needs time
// to arrive. Past it the server is taken as gone.
const answerGraceMs = 2000

// Open connects to the server (once, to fail early on an unreachable
// server or a refused login) and returns the backend.
func Open(cfg Config) (*Backend, error) {
	b := &Backend{cfg: cfg, secrets: secretsOf(cfg.URL)}
	pc, err := cfg.poolConfig(b.secrets)
	if err != nil {
		return nil, err
	}
	b.where = where(pc)
	b.pool, err = pgxpool.NewWithConfig(context.Background(), pc)
	if err != nil {
		return nil, status.Errorf(status.EOptions, "invalid PostgreSQL settings: "+b.secrets.scrub(err.Error()))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(cfg.ConnectTimeoutMs)*time.Millisecond)
	defer cancel()
	if err := b.pool.Ping(ctx); err != nil {
		b.pool.Close()
		return nil, b.connectFailure(err)
	}
	return b, nil
}

func (b *Backend) Dialect() query.Dialect { return query.PostgreSQL }

func (b *Backend) Close() { b.pool.Close() }

// requestContext bounds one call: max_query_ms plus the grace, or nothing
// when max_query_ms is 0 (connecting is bounded by connect_timeout_ms).
func (b *Backend) requestContext() (context.Context, context.CancelFunc) {
	if b.cfg.MaxQueryMs == 0 {
		return context.Background(), func() {}
	}
	return context.WithTimeout(context.Background(), time.Duration(b.cfg.MaxQueryMs+answerGraceMs)*time.Millisecond)
}

// session is one call's use of one pooled connection in one schema.
type session struct {
	b    *Backend
	conn *pgxpool.Conn
	x    exchange
}

// begin resolves db, takes a connection and points its search_path at the
// schema, creating the schema on its first use.
func (b *Backend) begin(ctx context.Context, db []byte) (*session, error) {
	sc, err := b.schemas.get(db)
	if err != nil {
		return nil, err
	}
	c, err := b.pool.Acquire(ctx)
	if err != nil {
		return nil, b.connectFailure(err)
	}
	s := &session{b: b, conn: c, x: exchange{b: b, pg: c.Conn().PgConn()}}
	s.x.st = stateOf(s.x.pg)
	if err := s.x.useSchema(ctx, sc); err != nil {
		c.Release()
		return nil, err
	}
	return s, nil
}

func (s *session) end() { s.conn.Release() }

func (b *Backend) Run(r *query.Request, out []byte) ([]byte, error) {
	ctx, cancel := b.requestContext()
	defer cancel()
	s, err := b.begin(ctx, r.DB)
	if err != nil {
		return out, err
	}
	defer s.end()
	s.x.req = r
	if !r.Tx && r.Stmts[0].Kind == query.Select {
		return s.x.selectRows(ctx, &r.Stmts[0], out)
	}
	return s.x.writes(ctx, out)
}

// Exec runs dal_exec's SQL text in the schema of db, as one simple-protocol
// query: its statements run in order, and without BEGIN/COMMIT in the text
// they form one implicit transaction, so a failure undoes the statements
// before it too (SQLite keeps them; dal.h says so). A transaction the text
// leaves open is rolled back.
func (b *Backend) Exec(db, sql []byte) error {
	ctx, cancel := b.requestContext()
	defer cancel()
	s, err := b.begin(ctx, db)
	if err != nil {
		return err
	}
	defer s.end()
	pg := s.x.pg
	_, err = pg.Exec(ctx, string(sql)).ReadAll()
	s.x.st.schema = "" // the text may have set search_path itself
	if pg.TxStatus() != 'I' && !pg.IsClosed() {
		_, rbErr := pg.Exec(ctx, "ROLLBACK").ReadAll()
		if err == nil && rbErr == nil {
			return status.Errorf(status.ERequest, "SQL text left a transaction open (BEGIN without COMMIT); it was rolled back")
		}
	}
	if err == nil {
		return nil
	}
	if msg, state, ok := serverError(err); ok {
		return status.Errorf(status.EDatabase, fmt.Sprintf("SQL error in database %q: %s (SQLSTATE %s)", db, msg, state))
	}
	return b.callFailure(err, true)
}
