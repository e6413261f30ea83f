package engine

import (
	"dalkit/native/internal/query"
	"dalkit/native/internal/sqlite"
	"dalkit/native/internal/wire"

	"github.com/tinylib/msgp/msgp"
)

// bindArgs binds a statement's parameters. Values were checked to be scalars
// by the builder. On failure it returns SQLite's result code.
func bindArgs(s *sqlite.Stmt, args []wire.Value) int {
	for i, a := range args {
		var rc int
		switch a.Kind {
		case wire.Nil:
			rc = s.BindNull(i + 1)
		case wire.Bool, wire.Int:
			rc = s.BindInt64(i+1, a.Int())
		case wire.Float:
			rc = s.BindFloat(i+1, a.Float())
		case wire.Str:
			rc = s.BindText(i+1, a.Bytes)
		case wire.Bin:
			rc = s.BindBlob(i+1, a.Bytes)
		default:
			rc = 20 // SQLITE_MISMATCH: the builder rejects everything else
		}
		if rc != 0 {
			return rc
		}
	}
	return 0
}

// runSelect executes a SELECT on c and appends the rows response, or an
// error response carrying SQLite's message.
func runSelect(c *conn, id uint64, st *query.Stmt, out []byte) []byte {
	s, owned := c.prepare(st.SQL)
	if s == nil {
		return wire.AppendExecResult(out, id, 0, 0, c.db.ErrMsg())
	}
	defer c.release(s, owned)
	if bindArgs(s, st.Args) != 0 {
		return wire.AppendExecResult(out, id, 0, 0, c.db.ErrMsg())
	}
	start := len(out)
	ncol := s.ColumnCount()
	out = wire.AppendRowsStart(out, id, ncol)
	for i := 0; i < ncol; i++ {
		out = msgp.AppendStringFromBytes(out, s.ColumnName(i))
	}
	out, countAt := wire.AppendRowsOpen(out)
	var rows uint32
	for {
		rc := s.Step()
		if rc == sqlite.Done {
			break
		}
		if rc != sqlite.Row {
			return wire.AppendExecResult(out[:start], id, 0, 0, c.db.ErrMsg())
		}
		rows++
		out = msgp.AppendArrayHeader(out, uint32(ncol))
		for i := 0; i < ncol; i++ {
			switch s.ColumnType(i) {
			case sqlite.TypeInteger:
				out = msgp.AppendInt64(out, s.ColumnInt64(i))
			case sqlite.TypeFloat:
				out = msgp.AppendFloat64(out, s.ColumnFloat(i))
			case sqlite.TypeText:
				out = msgp.AppendStringFromBytes(out, s.ColumnText(i))
			case sqlite.TypeBlob:
				out = msgp.AppendBytes(out, s.ColumnBlob(i))
			default:
				out = msgp.AppendNil(out)
			}
		}
	}
	wire.PatchArrayHeader32(out, countAt, rows)
	return out
}

// runWrite executes one INSERT, UPDATE or DELETE on the writer connection.
// It returns rows affected and last insert id, or ok=false with SQLite's
// message available from c.db.ErrMsg().
func runWrite(c *conn, st *query.Stmt) (ra, li int64, ok bool) {
	s, owned := c.prepare(st.SQL)
	if s == nil {
		return 0, 0, false
	}
	defer c.release(s, owned)
	if bindArgs(s, st.Args) != 0 {
		return 0, 0, false
	}
	for {
		rc := s.Step()
		if rc == sqlite.Done {
			break
		}
		if rc != sqlite.Row { // RETURNING is not generated, but rows are harmless
			return 0, 0, false
		}
	}
	ra = c.db.Changes()
	// last_insert_rowid is per connection and survives other statements:
	// report it only for an INSERT that inserted, never a stale one.
	if st.Kind == query.Insert && ra > 0 {
		li = c.db.LastInsertRowID()
	}
	return ra, li, true
}

// runWrites executes the statements of a request on the writer connection,
// inside one transaction when there is more than one or the request is a Tx.
func runWrites(c *conn, req *query.Request, out []byte) []byte {
	if !req.Tx && len(req.Stmts) == 1 {
		ra, li, ok := runWrite(c, &req.Stmts[0])
		if !ok {
			return wire.AppendExecResult(out, req.ID, 0, 0, c.db.ErrMsg())
		}
		return wire.AppendExecResult(out, req.ID, ra, li, nil)
	}
	if err := c.db.Exec("BEGIN IMMEDIATE"); err != nil {
		return wire.AppendExecResult(out, req.ID, 0, 0, []byte(err.Error()))
	}
	var total, last int64
	for i := range req.Stmts {
		ra, li, ok := runWrite(c, &req.Stmts[i])
		if !ok {
			out = wire.AppendExecResult(out, req.ID, 0, 0, c.db.ErrMsg())
			rollback(c)
			return out
		}
		total += ra
		if li != 0 {
			last = li
		}
	}
	if err := c.db.Exec("COMMIT"); err != nil {
		out = wire.AppendExecResult(out, req.ID, 0, 0, []byte(err.Error()))
		rollback(c)
		return out
	}
	return wire.AppendExecResult(out, req.ID, total, last, nil)
}

// rollback ends a failed transaction. SQLite may already have rolled back
// (some errors do that automatically), so only roll back what is open.
func rollback(c *conn) {
	if c.db.InTransaction() {
		_ = c.db.Exec("ROLLBACK")
	}
}
