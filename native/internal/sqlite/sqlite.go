// Package sqlite is the DAL's minimal binding to the system SQLite 3 library
// (Debian libsqlite3-dev) through cgo.
//
// It binds SQLite directly rather than through database/sql: the DAL needs
// exact control over statement lifetime (every statement reset right after
// use so no read transaction pins the WAL, and finalized on eviction or
// close), per-connection statement caches keyed by SQL text, zero-copy
// binding of request bytes, and the exact SQLite memory figure for the leak
// monitor (config.c).
// database/sql adds a connection pool, contexts and interface boxing per row
// that the DAL would have to work around.
//
// A Conn is not safe for concurrent use; the engine hands each connection to
// one goroutine at a time (connections are opened with SQLITE_OPEN_NOMUTEX).
package sqlite

/*
#cgo LDFLAGS: -lsqlite3
#cgo noescape dal_sqlite_prepare
#cgo nocallback dal_sqlite_prepare
#cgo noescape dal_params_grow
#cgo nocallback dal_params_grow
#cgo noescape dal_sqlite_errmsg
#cgo nocallback dal_sqlite_errmsg
#cgo noescape dal_sqlite_open
#cgo nocallback dal_sqlite_open
#cgo noescape dal_sqlite_exec
#cgo nocallback dal_sqlite_exec
#cgo nocallback sqlite3_step
#cgo nocallback sqlite3_reset
#cgo nocallback sqlite3_clear_bindings
#cgo nocallback sqlite3_finalize
#cgo nocallback sqlite3_errmsg
#cgo nocallback sqlite3_column_type
#cgo nocallback sqlite3_column_int64
#cgo nocallback sqlite3_column_double
#cgo nocallback sqlite3_column_bytes
#cgo nocallback sqlite3_column_text
#cgo nocallback sqlite3_column_blob
#cgo noescape dal_sqlite_rows
#cgo nocallback dal_sqlite_write
#cgo noescape dal_sqlite_write
#cgo nocallback dal_sqlite_rows
#include "binding.h"
#include "rows.h"
*/
import "C"

import (
	"math"
	"runtime"
	"slices"
	"unsafe"
)

// Open flags, mirrored from sqlite3.h so callers need no cgo.
const (
	OpenReadWrite = C.SQLITE_OPEN_READWRITE
	OpenCreate    = C.SQLITE_OPEN_CREATE
	OpenNoMutex   = C.SQLITE_OPEN_NOMUTEX
	OpenNoFollow  = C.SQLITE_OPEN_NOFOLLOW
)

// Result codes the engine reacts to.
const (
	OK        = C.SQLITE_OK
	Busy      = C.SQLITE_BUSY
	Locked    = C.SQLITE_LOCKED
	Interrupt = C.SQLITE_INTERRUPT
	Mismatch  = C.SQLITE_MISMATCH
)

// Step results.
const (
	Row  = C.SQLITE_ROW
	Done = C.SQLITE_DONE
)

// Column types.
const (
	TypeInteger = C.SQLITE_INTEGER
	TypeFloat   = C.SQLITE_FLOAT
	TypeText    = C.SQLITE_TEXT
	TypeBlob    = C.SQLITE_BLOB
	TypeNull    = C.SQLITE_NULL
)

// Error carries SQLite's result code and message.
type Error struct {
	Code int
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Conn is one SQLite connection.
type Conn struct {
	db    *C.sqlite3
	clock *C.dal_query_clock // nil: no time limit
	tx    [len(txSQL)]*Stmt  // ExecTx's statements, compiled on first use
	// The parameters of the next statement stepped: a view of C memory
	// (params.h), grown by Params and freed by Close.
	params Params
}

// Params are the parameters of the next statement a connection steps, in C
// memory: set each (i from 0) after Conn.Params, and the statement's
// StepWrite or AppendRows binds them all in the cgo call that steps it,
// then empties them. Text and blobs are copied by SQLite (SQLITE_TRANSIENT)
// during that call, so they may point into the request buffer, which the
// caller keeps alive, and pins if it is Go memory (cgo's rule for Go
// pointers stored in C memory), for the call.
type Params struct{ v []C.dal_param }

func (p *Params) Null(i int)         { p.v[i] = C.dal_param{kind: C.DAL_PARAM_NULL} }
func (p *Params) Int(i int, v int64) { p.v[i] = C.dal_param{kind: C.DAL_PARAM_INT, num: C.int64_t(v)} }
func (p *Params) Float(i int, v float64) {
	p.v[i] = C.dal_param{kind: C.DAL_PARAM_FLOAT, num: C.int64_t(math.Float64bits(v))}
}
func (p *Params) Text(i int, v []byte) { p.v[i] = bytesParam(C.DAL_PARAM_TEXT, v) }
func (p *Params) Blob(i int, v []byte) { p.v[i] = bytesParam(C.DAL_PARAM_BLOB, v) }

// Invalid makes the bind fail with Mismatch, for a value SQLite cannot bind.
func (p *Params) Invalid(i int) { p.v[i] = C.dal_param{kind: -1} }

func bytesParam(kind C.int32_t, v []byte) C.dal_param {
	return C.dal_param{kind: kind, n: C.int32_t(len(v)), p: C.uintptr_t(uintptr(unsafe.Pointer(unsafe.SliceData(v))))}
}

// take returns the array and count to bind, and empties p: parameters are
// bound once, by the next statement stepped.
func (p *Params) take() (*C.dal_param, C.int) {
	v, n := unsafe.SliceData(p.v), len(p.v)
	p.v = p.v[:0]
	return v, C.int(n)
}

// Params returns the connection's parameters, n of them, to be set before
// the next statement is stepped; ok=false when the C array could not grow.
func (c *Conn) Params(n int) (p *Params, ok bool) {
	p = &c.params
	if n > cap(p.v) {
		size := max(n, 2*cap(p.v), 8)
		grown := C.dal_params_grow(unsafe.SliceData(p.v), C.int(size))
		if grown == nil {
			return p, false
		}
		p.v = unsafe.Slice(grown, size)
	}
	p.v = p.v[:n]
	return p, true
}

// TxOp is a transaction statement ExecTx runs.
type TxOp int

const (
	Begin    TxOp = iota // BEGIN IMMEDIATE
	Commit               // COMMIT
	Rollback             // ROLLBACK
)

var txSQL = [...]string{Begin: "BEGIN IMMEDIATE", Commit: "COMMIT", Rollback: "ROLLBACK"}

// Stmt is one prepared statement of a Conn.
type Stmt struct {
	s    *C.sqlite3_stmt
	conn *Conn
}

// Version is sqlite3_libversion().
func Version() string { return C.GoString(C.sqlite3_libversion()) }

// Open opens path with flags and sets the busy timeout.
func Open(path string, flags int, busyTimeoutMs int) (*Conn, error) {
	configure()
	if configErr != nil {
		return nil, configErr
	}
	p := append([]byte(path), 0)
	var db *C.sqlite3
	rc := C.dal_sqlite_open((*C.char)(unsafe.Pointer(&p[0])), C.int(flags), C.int(busyTimeoutMs), &db)
	if rc != C.SQLITE_OK {
		var msg string
		if db != nil && rc == C.SQLITE_MISUSE {
			msg = "cannot turn off SQLite's double-quoted string literals (SQLITE_DBCONFIG_DQS_DML/DDL)"
			C.sqlite3_close_v2(db)
		} else if db != nil {
			msg = C.GoString(C.sqlite3_errmsg(db))
			C.sqlite3_close_v2(db)
		} else {
			msg = C.GoString(C.sqlite3_errstr(rc))
		}
		return nil, &Error{Code: int(rc), Msg: msg}
	}
	return &Conn{db: db}, nil
}

// Close closes the connection. Statements must have been finalized first; a
// statement that was not (only a planted leak does that) keeps the
// connection alive as a zombie, as sqlite3_close_v2 documents.
func (c *Conn) Close() error {
	if c.db == nil {
		return nil
	}
	for i, s := range c.tx {
		if s != nil {
			s.Finalize()
			c.tx[i] = nil
		}
	}
	C.free(unsafe.Pointer(unsafe.SliceData(c.params.v)))
	c.params.v = nil
	if c.clock != nil {
		// A connection kept alive as a zombie must not call into freed memory.
		C.sqlite3_progress_handler(c.db, 0, nil, nil)
		C.free(unsafe.Pointer(c.clock))
		c.clock = nil
	}
	rc := C.sqlite3_close_v2(c.db)
	c.db = nil
	if rc != C.SQLITE_OK {
		return &Error{Code: int(rc), Msg: C.GoString(C.sqlite3_errstr(rc))}
	}
	return nil
}

// Exec runs SQL text without parameters (pragmas, BEGIN, COMMIT).
func (c *Conn) Exec(sql string) error {
	p := append([]byte(sql), 0)
	rc := C.dal_sqlite_exec(c.db, (*C.char)(unsafe.Pointer(&p[0])))
	if rc != C.SQLITE_OK {
		return c.lastError(rc)
	}
	return nil
}

// ExecTx runs op as Exec(its SQL) would, with the same result and error,
// from a statement compiled on its first use and kept until Close: Exec
// compiles its text again on every call, which costs more instructions than
// a one-row write (the floor's transactions run prepared statements too).
// The statement is outside the engine's statement cache: neither its
// capacity nor its count knows it.
func (c *Conn) ExecTx(op TxOp) error {
	s := c.tx[op]
	if s == nil {
		var rc int
		if s, rc, _ = c.Prepare([]byte(txSQL[op])); s == nil {
			return c.lastError(C.int(rc))
		}
		c.tx[op] = s
	}
	// A step, and a reset that keeps the step's error on the connection.
	if _, _, rc := s.stepWrite(nil, 0, false, true); rc != Done {
		return c.lastError(C.int(rc))
	}
	return nil
}

func (c *Conn) lastError(rc C.int) error {
	return &Error{Code: int(rc), Msg: C.GoString(C.sqlite3_errmsg(c.db))}
}

// SetTimeLimit bounds the execution time of each armed request on this
// connection to ms milliseconds (binding.h, dal_query_clock). Call once,
// right after Open; ms must be > 0.
func (c *Conn) SetTimeLimit(ms int) error {
	c.clock = C.dal_sqlite_set_time_limit(c.db, C.int64_t(ms))
	if c.clock == nil {
		return &Error{Code: C.SQLITE_NOMEM, Msg: "out of memory for the query time limit"}
	}
	return nil
}

// ArmTimeLimit starts a new request's time budget. Two stores into C
// memory, no cgo call: this runs on every request.
func (c *Conn) ArmTimeLimit() {
	if c.clock != nil {
		c.clock.start_ns = 0
		c.clock.expired = 0
	}
}

// TimeLimitExpired reports whether the time limit interrupted the last
// statement (its step then returned Interrupt).
func (c *Conn) TimeLimitExpired() bool { return c.clock != nil && c.clock.expired != 0 }

// ExtendedErrCode is sqlite3_extended_errcode(): the extended result code of
// the connection's most recent failure, e.g. SQLITE_CONSTRAINT_UNIQUE.
func (c *Conn) ExtendedErrCode() int { return int(C.sqlite3_extended_errcode(c.db)) }

// ErrMsg is a zero-copy view of sqlite3_errmsg(): valid until the next call
// on this connection, so callers copy it (into the response) at once.
func (c *Conn) ErrMsg() []byte {
	var n C.size_t
	p := C.dal_sqlite_errmsg(c.db, &n) // one cgo call instead of errmsg + strlen
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n))
}

// Prepare compiles sql (no NUL needed). On failure it returns nil, the
// error code and SQLite's message as a zero-copy view valid until the next
// call on c (callers copy it, into the response, at once), or a nil message
// when SQLite reported none: then it is c.ErrMsg(), as before the call.
func (c *Conn) Prepare(sql []byte) (*Stmt, int, []byte) {
	if len(sql) == 0 {
		return nil, C.SQLITE_MISUSE, nil
	}
	p := C.dal_sqlite_prepare(c.db, (*C.char)(unsafe.Pointer(&sql[0])), C.int(len(sql)))
	runtime.KeepAlive(sql)
	if p.rc != C.SQLITE_OK {
		return nil, int(p.rc), unsafe.Slice((*byte)(unsafe.Pointer(p.msg)), int(p.msg_len))
	}
	if p.stmt == nil { // only whitespace or a comment: not possible for built SQL
		return nil, C.SQLITE_MISUSE, nil
	}
	return &Stmt{s: p.stmt, conn: c}, C.SQLITE_OK, nil
}

// InTransaction reports whether an explicit transaction is open.
func (c *Conn) InTransaction() bool { return C.sqlite3_get_autocommit(c.db) == 0 }

// Step advances the statement: Row, Done, or an error code.
func (s *Stmt) Step() int { return int(C.sqlite3_step(s.s)) }

// Reset rewinds the statement and clears its bindings, ending any read
// transaction it held so WAL checkpoints are never blocked by the cache.
func (s *Stmt) Reset() {
	C.sqlite3_reset(s.s)
	C.sqlite3_clear_bindings(s.s)
}

// StepWrite binds the connection's Params, runs a write statement to the
// end and returns its changes and, with wantRowID, the rowid of an insert
// that inserted (0 otherwise), with Done as rc on success (else the bind's
// or the step's code); with reset it also resets the statement (Reset).
// One cgo call for what the binds, Step, Changes, LastInsertRowID and Reset
// do.
func (s *Stmt) StepWrite(wantRowID, reset bool) (changes, rowID int64, rc int) {
	params, n := s.conn.params.take()
	return s.stepWrite(params, n, wantRowID, reset)
}

// stepWrite is StepWrite with the parameters given: ExecTx's statements
// take none, and must not consume Params set for the statement after them.
func (s *Stmt) stepWrite(params *C.dal_param, n C.int, wantRowID, reset bool) (changes, rowID int64, rc int) {
	var r C.dal_write_result
	rc = int(C.dal_sqlite_write(s.s, params, n, cbool(wantRowID), cbool(reset), &r))
	return int64(r.changes), int64(r.rowid), rc
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// Finalize destroys the statement.
func (s *Stmt) Finalize() {
	if s.s != nil {
		C.sqlite3_finalize(s.s)
		s.s = nil
	}
}

// RowsOverLimit is AppendRows' result when the encoded rows passed the
// limit (max_response_bytes).
const RowsOverLimit = C.DAL_ROWS_LIMIT

// AppendRows binds the connection's Params, steps the statement to its end
// and appends the column names and rows of a rows response (rows.h: the
// array of names, "r", the array of rows), encoded in C in one cgo call for
// the whole result unless out must grow. It returns Done, RowsOverLimit as
// soon as len(out)-start exceeds limit after a row (out then holds that
// row), or the error code of a bind or a step that failed; and the number
// of rows written.
func (s *Stmt) AppendRows(out []byte, start, limit int) ([]byte, uint32, int) {
	st := C.dal_rows_state{len: C.int64_t(len(out)), start: C.int64_t(start), limit: C.int64_t(limit), ncol: -1}
	if cap(out)-len(out) < 256 {
		out = slices.Grow(out, 256)
	}
	params, n := s.conn.params.take()
	for {
		st.cap = C.int64_t(cap(out))
		rc := C.dal_sqlite_rows(s.s, params, n, (*C.uchar)(unsafe.Pointer(unsafe.SliceData(out))), &st)
		n = 0 // bound
		out = out[:st.len]
		if rc != C.DAL_ROWS_FULL {
			return out, uint32(st.rows), int(rc)
		}
		out = slices.Grow(out, int(st.need))
	}
}

// ColumnCount is the number of result columns.
func (s *Stmt) ColumnCount() int { return int(C.sqlite3_column_count(s.s)) }

// ColumnName is a zero-copy view of column i's name, valid while the statement lives.
func (s *Stmt) ColumnName(i int) []byte {
	p := C.sqlite3_column_name(s.s, C.int(i))
	if p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), C.strlen(p))
}

// ColumnType is the storage class of column i in the current row.
func (s *Stmt) ColumnType(i int) int { return int(C.sqlite3_column_type(s.s, C.int(i))) }

func (s *Stmt) ColumnInt64(i int) int64 { return int64(C.sqlite3_column_int64(s.s, C.int(i))) }
func (s *Stmt) ColumnFloat(i int) float64 {
	return float64(C.sqlite3_column_double(s.s, C.int(i)))
}

// ColumnText and ColumnBlob are zero-copy views valid until the next Step.
func (s *Stmt) ColumnText(i int) []byte {
	p := C.sqlite3_column_text(s.s, C.int(i))
	n := C.sqlite3_column_bytes(s.s, C.int(i))
	if p == nil || n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n))
}
func (s *Stmt) ColumnBlob(i int) []byte {
	p := C.sqlite3_column_blob(s.s, C.int(i))
	n := C.sqlite3_column_bytes(s.s, C.int(i))
	if p == nil || n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), int(n))
}
