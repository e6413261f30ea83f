package engine

import (
	"fmt"

	"dalkit/native/internal/query"
	"dalkit/native/internal/sqlite"
	"dalkit/native/internal/wire"
)

// This file steps built statements on a connection and encodes their
// answers. A failure SQLite reports (no such table, a constraint) becomes an
// error response; only a limit of the handle (max_query_ms,
// max_response_bytes) becomes a call failure, DAL_E_LIMIT.

// stepper is what one request needs to run its statements: the connection,
// the request's id and options, and the handle's limits.
type stepper struct {
	c    *conn
	req  *query.Request
	opts *Options
}

// setParams sets a statement's parameters for the cgo call that steps it
// (sqlite.Params). Values were checked to be scalars by the builder. On
// failure (the C array could not grow) it returns the error's message.
func setParams(db *sqlite.Conn, args []wire.Value) []byte {
	p, ok := db.Params(len(args))
	if !ok {
		return []byte("out of memory for the statement's parameters")
	}
	for i, a := range args {
		switch a.Kind {
		case wire.Nil:
			p.Null(i)
		case wire.Bool, wire.Int:
			p.Int(i, a.Int())
		case wire.Float:
			p.Float(i, a.Float())
		case wire.Str:
			p.Text(i, a.Bytes)
		case wire.Bin:
			p.Blob(i, a.Bytes)
		default:
			p.Invalid(i) // the builder rejects everything else
		}
	}
	return nil
}

// failed appends the error response for the connection's last failure,
// with the extended result code when the request asked for it ("codes").
// msg is SQLite's message (nil: read it from the connection now) or the
// caller's better one.
func (st *stepper) failed(out []byte, msg []byte) []byte {
	if msg == nil {
		msg = st.c.db.ErrMsg()
	}
	if st.req.Codes {
		return wire.AppendExecErrorCode(out, st.req.ID, msg, st.c.db.ExtendedErrCode())
	}
	return wire.AppendExecResult(out, st.req.ID, 0, 0, msg)
}

// overTime is the call failure for a statement the time limit interrupted.
func (st *stepper) overTime() error {
	return errorf(ELimit, fmt.Sprintf("request took longer than max_query_ms=%d and was interrupted; nothing was written", st.opts.MaxQueryMs))
}

// selectRows executes a SELECT and appends the rows response, or an error
// response carrying SQLite's message.
func (st *stepper) selectRows(s0 *query.Stmt, out []byte) ([]byte, error) {
	c := st.c
	s, owned, msg := c.prepare(s0.SQL)
	if s == nil {
		return st.failed(out, msg), nil
	}
	defer c.release(s, owned)
	if msg := setParams(c.db, s0.Args); msg != nil {
		return st.failed(out, msg), nil
	}
	start := len(out)
	limit := st.opts.MaxResponseBytes
	out = wire.AppendRowsStart(out, st.req.ID)
	out, rows, rc := s.AppendRows(out, start, limit)
	switch rc {
	case sqlite.Done:
		return out, nil
	case sqlite.RowsOverLimit:
		return out[:start], errorf(ELimit, fmt.Sprintf(
			"response exceeds max_response_bytes=%d (after %d rows); narrow the query with Find, Fields or Limit", limit, rows))
	case sqlite.Interrupt:
		if c.db.TimeLimitExpired() {
			return out[:start], st.overTime()
		}
	}
	return st.failed(out[:start], nil), nil
}

// write executes one INSERT, UPDATE or DELETE on the writer connection.
// It returns rows affected and last insert id, or ok=false with SQLite's
// message: msg when the prepare failed, else c.db.ErrMsg() (failed reads
// it when msg is nil). The statement is bound and run in one cgo call
// (StepWrite), which also resets a cached statement; an uncached one is
// finalized, as release does.
func (st *stepper) write(s0 *query.Stmt) (ra, li int64, msg []byte, ok bool) {
	c := st.c
	s, owned, msg := c.prepare(s0.SQL)
	if s == nil {
		return 0, 0, msg, false
	}
	if msg := setParams(c.db, s0.Args); msg != nil {
		c.release(s, owned)
		return 0, 0, msg, false
	}
	ra, li, rc := s.StepWrite(s0.Kind == query.Insert, !owned)
	if owned {
		c.release(s, owned)
	}
	return ra, li, nil, rc == sqlite.Done
}

// writes executes the statements of a request on the writer connection,
// inside one transaction when there is more than one or the request is a
// Tx. An interrupted statement (max_query_ms) is undone by SQLite: a single
// statement's changes are rolled back, and so is an explicit transaction.
func (st *stepper) writes(out []byte) ([]byte, error) {
	c, req := st.c, st.req
	if !req.Tx && len(req.Stmts) == 1 {
		ra, li, msg, ok := st.write(&req.Stmts[0])
		if !ok {
			if c.db.TimeLimitExpired() {
				return out, st.overTime()
			}
			return st.failed(out, msg), nil
		}
		return wire.AppendExecResult(out, req.ID, ra, li, nil), nil
	}
	if err := c.db.ExecTx(sqlite.Begin); err != nil {
		return st.failed(out, []byte(err.Error())), nil
	}
	var total, last int64
	for i := range req.Stmts {
		ra, li, msg, ok := st.write(&req.Stmts[i])
		if !ok {
			expired := c.db.TimeLimitExpired()
			if !expired {
				out = st.failed(out, msg) // before the rollback replaces the message
			}
			rollback(c)
			if expired {
				return out, st.overTime()
			}
			return out, nil
		}
		total += ra
		if li != 0 {
			last = li
		}
	}
	if err := c.db.ExecTx(sqlite.Commit); err != nil {
		out = st.failed(out, []byte(err.Error()))
		rollback(c)
		return out, nil
	}
	return wire.AppendExecResult(out, req.ID, total, last, nil), nil
}

// rollback ends a failed transaction. SQLite may already have rolled back
// (some errors do that automatically), so only roll back what is open.
func rollback(c *conn) {
	if c.db.InTransaction() {
		_ = c.db.ExecTx(sqlite.Rollback)
	}
}
