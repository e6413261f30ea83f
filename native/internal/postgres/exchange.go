package postgres

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/tinylib/msgp/msgp"

	"dalkit/native/internal/query"
	"dalkit/native/internal/status"
	"dalkit/native/internal/wire"
)

// exchange runs one request's statements on one connection.
type exchange struct {
	srv    *server
	pg     *pgconn.PgConn
	st     *connState
	req    *query.Request
	schema string

	// After a call failure: the connection failed, and nothing of the
	// request had reached the server (connectionLost).
	lost, unsent bool
}

// useSchema points the connection's search_path at sc (only the schema:
// an unqualified name never reaches another db's tables), creating the
// schema on its first use. A connection keeps its search_path, so this
// costs a round trip only when the connection served another schema last.
func (x *exchange) useSchema(ctx context.Context, sc *schema) error {
	x.schema = sc.quoted
	// A replica is read-only: the schema is created by the primary and
	// replicated. Until then, reads there find no table, as on a new db.
	if !sc.created.Load() && !x.srv.replica {
		if err := x.createSchema(ctx, sc); err != nil {
			return err
		}
		sc.created.Store(true)
	}
	if x.st.schema == sc.quoted {
		return nil
	}
	if _, err := x.pg.Exec(ctx, "SET search_path TO "+sc.quoted).ReadAll(); err != nil {
		x.st.schema = ""
		return x.fail(err, false)
	}
	x.st.schema = sc.quoted
	return nil
}

// createSchema creates sc unless it exists. Existence is asked first: a
// role without CREATE on the database may use a schema made for it, and
// CREATE SCHEMA IF NOT EXISTS checks that privilege before existence.
func (x *exchange) createSchema(ctx context.Context, sc *schema) error {
	res := x.pg.ExecParams(ctx, "SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1", [][]byte{[]byte(sc.name)}, nil, nil, nil).Read()
	if res.Err == nil && len(res.Rows) > 0 {
		return nil
	}
	err := res.Err
	if err == nil {
		_, err = x.pg.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+sc.quoted).ReadAll()
	}
	// Two connections creating one schema at once: the loser gets a
	// duplicate error, and the schema exists all the same.
	if err == nil || hasState(err, stateDuplicateSchema) || hasState(err, stateUniqueViolated) {
		return nil
	}
	if msg, state, ok := serverError(err); ok {
		return status.Errorf(status.EDatabase, fmt.Sprintf("cannot create schema %s for this db: %s (SQLSTATE %s)", sc.quoted, msg, state))
	}
	return x.fail(err, false)
}

// failed appends the error response for a statement the server refused,
// or returns the call failure for anything else.
func (x *exchange) failed(out []byte, err error, write bool) ([]byte, error) {
	msg, state, ok := serverError(err)
	if !ok {
		return out, x.fail(err, write)
	}
	if x.req.Codes {
		return wire.AppendExecErrorState(out, x.req.ID, []byte(msg), state), nil
	}
	return wire.AppendExecResult(out, x.req.ID, 0, 0, []byte(msg)), nil
}

// fail is the call failure for err, remembering whether the connection
// was lost.
func (x *exchange) fail(err error, write bool) error {
	x.lost, x.unsent = connectionLost(err)
	return x.srv.callFailure(err, write)
}

// run prepares s (or takes it from the cache), binds its values and starts
// executing it.
func (x *exchange) run(ctx context.Context, s *query.Stmt) (*prepared, *pgconn.ResultReader, error) {
	p, err := x.st.stmts.prepare(ctx, x.pg, x.schema, s.SQL)
	if err != nil {
		return nil, nil, err
	}
	values, formats, err := x.st.params.encode(s.Args, p.paramOIDs)
	if err != nil {
		return nil, nil, err
	}
	return p, x.pg.ExecPrepared(ctx, p.name, values, formats, p.resultFormats), nil
}

// selectRows executes a SELECT and appends the rows response. A statement
// whose tables changed since it was prepared (dal_exec ran DDL) is refused
// by the server with "cached plan must not change result type"; it is
// prepared again and run once more, as SQLite re-prepares on its own.
func (x *exchange) selectRows(ctx context.Context, s *query.Stmt, out []byte) ([]byte, error) {
	start := len(out)
	for attempt := 0; ; attempt++ {
		p, rr, err := x.run(ctx, s)
		if err != nil {
			return x.failed(out[:start], err, false)
		}
		out = wire.AppendRowsStart(out[:start], x.req.ID)
		out = appendColumns(out, p.fields)
		out = msgp.AppendString(out, "r")
		countAt := len(out)
		out = append(out, 0xdd, 0, 0, 0, 0) // array32, as SQLite's rows (rows.h)
		var rows uint32
		over := false
		for rr.NextRow() {
			if over {
				continue // drain: the connection must reach the end of the result
			}
			out = appendRow(out, p.fields, rr.Values())
			rows++
			if len(out)-start > x.srv.cfg.MaxResponseBytes {
				over = true
			}
		}
		_, err = rr.Close()
		if err != nil && attempt == 0 && hasState(err, stateStalePlan) && p.name != "" {
			if ferr := x.st.stmts.forget(ctx, x.pg, p); ferr != nil {
				return out[:start], x.fail(ferr, false)
			}
			continue
		}
		if err != nil {
			return x.failed(out[:start], err, false)
		}
		if over {
			return out[:start], status.Errorf(status.ELimit, fmt.Sprintf(
				"response exceeds max_response_bytes=%d (after %d rows); narrow the query with Find, Fields or Limit", x.srv.cfg.MaxResponseBytes, rows))
		}
		binary.BigEndian.PutUint32(out[countAt+1:], rows)
		return out, nil
	}
}

// write executes one INSERT, UPDATE or DELETE and returns the rows it
// affected.
func (x *exchange) write(ctx context.Context, s *query.Stmt) (int64, error) {
	_, rr, err := x.run(ctx, s)
	if err != nil {
		return 0, err
	}
	tag, err := rr.Close()
	return tag.RowsAffected(), err
}

// simple runs a statement without parameters (BEGIN, COMMIT, ROLLBACK).
func (x *exchange) simple(ctx context.Context, sql string) error {
	_, err := x.pg.Exec(ctx, sql).ReadAll()
	return err
}

// writes executes the statements of a request: one in autocommit, or a
// Tx's in one transaction, rolled back on the first failure. PostgreSQL
// has no rowid, so li (last insert id) is always 0 (docs/protocol.md).
func (x *exchange) writes(ctx context.Context, out []byte) ([]byte, error) {
	req := x.req
	if !req.Tx && len(req.Stmts) == 1 {
		ra, err := x.write(ctx, &req.Stmts[0])
		if err != nil {
			return x.failed(out, err, true)
		}
		return wire.AppendExecResult(out, req.ID, ra, 0, nil), nil
	}
	if err := x.simple(ctx, "BEGIN"); err != nil {
		return x.failed(out, err, false)
	}
	var total int64
	for i := range req.Stmts {
		ra, err := x.write(ctx, &req.Stmts[i])
		if err != nil {
			out, ferr := x.failed(out, err, false) // nothing committed: the rollback follows
			if rbErr := x.rollback(ctx); rbErr != nil && ferr == nil {
				return out, x.fail(rbErr, false)
			}
			return out, ferr
		}
		total += ra
	}
	if err := x.simple(ctx, "COMMIT"); err != nil {
		// A deferred constraint fails here, and the server has rolled back.
		return x.failed(out, err, true)
	}
	return wire.AppendExecResult(out, req.ID, total, 0, nil), nil
}

// rollback ends a failed transaction, unless the connection is gone (the
// server then rolled it back itself).
func (x *exchange) rollback(ctx context.Context) error {
	if x.pg.IsClosed() || x.pg.TxStatus() == 'I' {
		return nil
	}
	return x.simple(ctx, "ROLLBACK")
}
