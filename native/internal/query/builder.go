// Package query turns a decoded DAL request (docs/protocol.md) into SQL
// statements in the dialect of the handle's backend (dialect.go: SQLite's
// '?' or PostgreSQL's '$n' placeholders, and the other differences):
// canonical SQL text plus the values to bind.
//
// The SQL text doubles as the engine's prepared-statement cache key, so the
// same query shape must always produce byte-identical SQL, and no request value
// ever appears in it: values go to Args, identifiers are validated and quoted.
package query

import (
	"math"
	"strconv"

	"dalkit/native/internal/wire"
)

// Kind is the statement type.
type Kind uint8

const (
	Select Kind = iota
	Insert
	Update
	Delete
)

var kindNames = [...]string{"SELECT", "INSERT", "UPDATE", "DELETE"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Stmt is one statement ready to prepare and bind.
type Stmt struct {
	Kind Kind
	SQL  []byte       // SQL text; placeholders only ('?' or '$n', by dialect)
	Args []wire.Value // scalars only (Nil, Bool, Int, Float, Str, Bin), one per placeholder, in order
}

// Request is a validated request. DB is the raw name from the request; the
// engine validates it as a file name.
type Request struct {
	ID    uint64
	DB    []byte
	Tx    bool
	Codes bool   // error responses also carry SQLite's extended result code
	Stmts []Stmt // exactly 1 unless Tx
}

// MaxParams is SQLite's default SQLITE_MAX_VARIABLE_NUMBER (32766 since
// 3.32): a statement with more placeholders would fail to prepare, so it is
// refused here with a clearer message.
const MaxParams = 32766

// maxFilterDepth bounds $and/$or/$not nesting. The decoder already caps the
// tree at wire.MaxDepth; this keeps the builder safe for trees built elsewhere.
const maxFilterDepth = wire.MaxDepth

// maxRetained is the buffer size a pooled Builder keeps across requests; a
// rare huge request does not pin its memory in the pool forever.
const maxRetained = 1 << 20

// Builder builds requests. It is reused across requests (the engine pools it)
// and keeps its buffers, so that a typical request builds without allocating
// after warm-up. Not safe for concurrent use.
type Builder struct {
	dialect Dialect
	req     Request
	stmts   []Stmt
	spans   []span
	sql     []byte       // SQL of all statements, back to back
	args    []wire.Value // args of all statements, back to back
	first   int          // index in args of the current statement's first arg
	p       plan         // the command list being built

	// For the shape cache (shapes.go): the scan of the request, and where
	// its id and db were and which bound values were checked by value.
	flat         wire.Flat
	scanned      bool
	free         []wire.Value              // the free scalars of a cached shape's request
	recent       [recentShapes]recentShape // the shapes this Builder used last, most recent first
	idPos, dbPos int
	checked      []int
}

// span locates one statement in sql and args. Stmt slices are cut only after
// the last statement is built, because appending may move the buffers.
type span struct{ sql0, sql1, arg0, arg1 int }

// Reset forgets the previous request. It clears every reference into the
// request buffer (Args and the plan alias it), so a pooled Builder does not
// keep request memory reachable.
func (b *Builder) Reset() {
	b.reset()
	clear(b.free)
	b.free = b.free[:0]
	if cap(b.flat.Spans) > maxRetained/8 || cap(b.flat.Skeleton) > maxRetained {
		b.flat = wire.Flat{}
	}
	b.scanned = false
}

// reset forgets the previous build but keeps the scan Cached made, for
// Remember.
func (b *Builder) reset() {
	b.idPos, b.dbPos, b.checked = -1, -1, b.checked[:0]
	// The args alias the request; the stmts only the Builder's own sql and
	// args (or a shape's), so they are truncated without clearing.
	clear(b.args)
	b.args, b.stmts, b.spans, b.sql = b.args[:0], b.stmts[:0], b.spans[:0], b.sql[:0]
	if cap(b.sql) > maxRetained {
		b.sql = nil
	}
	if cap(b.args) > maxRetained/32 {
		b.args = nil
	}
	b.req = Request{}
	b.p.reset()
}

// Build validates the decoded request envelope {id, db, commands} and builds
// its statements. The returned *Request and its slices are owned by the
// Builder and valid until the next Build or Reset; Args alias the request
// bytes the Value was decoded from.
func (b *Builder) Build(req wire.Value) (*Request, error) {
	b.reset()
	if err := b.build(req); err != nil {
		b.Reset()
		return nil, err
	}
	for i, s := range b.spans {
		b.stmts[i].SQL = b.sql[s.sql0:s.sql1:s.sql1]
		b.stmts[i].Args = b.args[s.arg0:s.arg1:s.arg1]
	}
	b.req.Stmts = b.stmts
	return &b.req, nil
}

// begin and end bracket the building of one statement.
func (b *Builder) begin() (sql0 int) {
	b.first = len(b.args)
	return len(b.sql)
}

func (b *Builder) end(kind Kind, sql0 int) {
	b.stmts = append(b.stmts, Stmt{Kind: kind})
	b.spans = append(b.spans, span{sql0, len(b.sql), b.first, len(b.args)})
}

func (b *Builder) w(s string) { b.sql = append(b.sql, s...) }

// bind appends a '?' and its value. Containers are refused by callers with a
// message naming the position; bind refuses what SQLite cannot bind at all.
func (b *Builder) bind(v wire.Value) error {
	switch v.Kind {
	case wire.Nil, wire.Bool, wire.Int, wire.Float, wire.Str, wire.Bin:
	case wire.Uint:
		return errorf("integer out of range: %d does not fit in a signed 64-bit integer, the largest SQLite can store is %d", v.Uint(), int64(math.MaxInt64))
	default:
		return errorf("expected a scalar (nil, bool, integer, float, string or binary), got %s", v.Kind)
	}
	if len(b.args)-b.first >= MaxParams {
		return errorf("too many parameters: a statement may bind at most %d values", MaxParams)
	}
	b.args = append(b.args, v)
	b.placeholder()
	return nil
}

// bindChecked binds a value the builder has checked by value, not only by
// kind (Limit, Offset): the shape cache must then treat it as part of the
// request's shape, not as a free value.
func (b *Builder) bindChecked(v wire.Value) error {
	if err := b.bind(v); err != nil {
		return err
	}
	if v.Pos() >= 0 {
		b.checked = append(b.checked, v.Pos())
	}
	return nil
}
