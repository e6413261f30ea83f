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
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"dalkit/native/internal/query"
	"dalkit/native/internal/status"
)

// Backend is one PostgreSQL database: the primary's pool, the read
// replicas' pools, and the schemas its requests name.
//
// Routing: writes and Tx go to the primary. A SELECT outside Tx goes to the
// replicas in turn (with read_primary=1 the primary takes a turn too); a
// replica whose connection fails is skipped for replicaRetry and counted
// (ReadCounters), and the read goes to the next replica, then the primary.
// Replication is asynchronous: a read on a replica may not see a write the
// primary has just acknowledged (docs/protocol.md).
type Backend struct {
	cfg      Config
	primary  *server
	replicas []*server
	turn     atomic.Uint32 // the replica whose turn the next read is
	schemas  schemaSet

	// mu guards what dal_stats and the planted connection leak add to the
	// handle (figures.go, planted.go); closed is set by Close under it.
	mu      sync.Mutex
	closed  bool
	planted []*pgconn.PgConn
}

// answerGraceMs is how long past max_query_ms a call waits for the server:
// statement_timeout ends a slow statement there, and its answer needs time
// to arrive. Past it the server is taken as gone.
const answerGraceMs = 2000

// Open connects to the primary and to each replica once, to fail early
// on an unreachable server or a refused login, and returns the backend.
func Open(cfg Config) (*Backend, error) {
	b := &Backend{cfg: cfg}
	var err error
	if b.primary, err = openServer(&b.cfg, cfg.URL, false); err != nil {
		return nil, err
	}
	for _, u := range cfg.Replicas {
		r, err := openServer(&b.cfg, u, true)
		if err != nil {
			b.Close()
			return nil, err
		}
		b.replicas = append(b.replicas, r)
	}
	backends.add(b)
	return b, nil
}

func (b *Backend) Dialect() query.Dialect { return query.PostgreSQL }

func (b *Backend) Close() {
	backends.remove(b)
	b.mu.Lock()
	b.closed = true
	b.closePlanted()
	b.mu.Unlock()
	for _, s := range b.servers() {
		s.pool.Close()
		s.closeStatsConn()
	}
}

// servers are the primary, then the replicas.
func (b *Backend) servers() []*server {
	return append([]*server{b.primary}, b.replicas...)
}

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
	conn *pgxpool.Conn
	x    exchange
}

// begin resolves db, takes a connection of srv and points its search_path
// at the schema, creating the schema on its first use. On failure s.x says
// whether the connection was lost.
func (s *session) begin(ctx context.Context, b *Backend, srv *server, db []byte) error {
	s.x.srv = srv
	sc, err := b.schemas.get(db)
	if err != nil {
		return err
	}
	c, err := srv.pool.Acquire(ctx)
	if err != nil {
		s.x.lost, s.x.unsent = !errors.Is(err, context.DeadlineExceeded), true
		return srv.connectFailure(err)
	}
	s.conn = c
	s.x.pg = c.Conn().PgConn()
	s.x.st = stateOf(s.x.pg)
	if err := s.x.useSchema(ctx, sc); err != nil {
		c.Release()
		s.conn = nil
		return err
	}
	return nil
}

func (s *session) end() {
	if s.conn != nil {
		s.conn.Release()
	}
}

func (b *Backend) Run(r *query.Request, out []byte) ([]byte, error) {
	ctx, cancel := b.requestContext()
	defer cancel()
	if r.Tx || r.Stmts[0].Kind != query.Select {
		res, s, err := b.runOn(ctx, b.primary, r, out)
		if s.x.lost && s.x.unsent { // a dead pooled connection: nothing was sent, so once more
			res, _, err = b.runOn(ctx, b.primary, r, out)
		}
		return res, err
	}
	// A read: the replicas in turn, skipping those marked down, then the
	// primary; with read_primary=1 every (n+1)th read starts at the primary.
	n := len(b.replicas)
	turn := int(b.turn.Add(1) - 1)
	primaryFirst := n > 0 && b.cfg.ReadPrimary && turn%(n+1) == n
	if primaryFirst {
		if res, s, err := b.runOn(ctx, b.primary, r, out); !s.x.lost {
			return res, err
		}
	}
	for i := 0; i < n; i++ {
		srv := b.replicas[(turn+i)%n]
		if srv.down() {
			replicaSkips.Add(1)
			continue
		}
		res, s, err := b.runOn(ctx, srv, r, out)
		if !s.x.lost {
			return res, err
		}
		srv.markDown()
		replicaSkips.Add(1)
	}
	res, s, err := b.runOn(ctx, b.primary, r, out)
	if s.x.lost && !primaryFirst { // a read may run again, on a fresh connection
		res, _, err = b.runOn(ctx, b.primary, r, out)
	}
	return res, err
}

// runOn runs r once on a connection of srv; the session tells whether a
// failure lost the connection.
func (b *Backend) runOn(ctx context.Context, srv *server, r *query.Request, out []byte) ([]byte, *session, error) {
	s := &session{}
	if err := s.begin(ctx, b, srv, r.DB); err != nil {
		return out, s, err
	}
	defer s.end()
	s.x.req = r
	if !r.Tx && r.Stmts[0].Kind == query.Select {
		res, err := s.x.selectRows(ctx, &r.Stmts[0], out)
		return res, s, err
	}
	res, err := s.x.writes(ctx, out)
	return res, s, err
}

// Exec runs dal_exec's SQL text in the schema of db, as one simple-protocol
// query: its statements run in order, and without BEGIN/COMMIT in the text
// they form one implicit transaction, so a failure undoes the statements
// before it too (SQLite keeps them; dal.h says so). A transaction the text
// leaves open is rolled back.
func (b *Backend) Exec(db, sql []byte) error {
	ctx, cancel := b.requestContext()
	defer cancel()
	s := &session{}
	if err := s.begin(ctx, b, b.primary, db); err != nil {
		return err
	}
	defer s.end()
	pg := s.x.pg
	_, err := pg.Exec(ctx, string(sql)).ReadAll()
	// The text may have set search_path, or DEALLOCATE'd or DISCARD'ed
	// what the connection had: it starts afresh.
	s.x.st.schema = ""
	s.x.st.stmts.deallocateAll(ctx, pg)
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
	return b.primary.callFailure(err, true)
}
