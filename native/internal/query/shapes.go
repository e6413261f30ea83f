package query

import (
	"bytes"
	"hash/maphash"
	"slices"
	"sync/atomic"

	"dalkit/native/internal/wire"
)

// The shape cache: built statements by request shape, so that a request of a
// shape built before skips the decoder's tree and the builder, its values
// still bound as parameters.
//
// A request's shape is everything but its free values: its skeleton (the
// kind of every value and the length of every container, wire.Flat), the
// exact bytes of everything but the free scalars (container headers, keys,
// method names, table and column names, operators, db, and the
// Limit/Offset counts, which the builder checks by value), and which
// scalars are free. Free are the id and
// the values the builder bound after checking only their kind, which the
// skeleton holds: the SQL, and whether the request builds at all, depend on
// nothing else, so two requests of one shape build to the same statements
// with the same values in the same places. A hit therefore compares the
// skeleton and the fixed bytes exactly, and the statements it returns are
// those the builder made for the first request of the shape.
//
// Process-wide and shared by every handle and thread: entries are immutable
// once published, and each slot is an atomic pointer, so a lookup takes no
// lock. It is bounded: shapeSets sets of shapeWays entries, a new shape
// replacing one of its set round-robin, and requests too large to be worth
// it (maxShapeBytes) are not kept.
const (
	shapeSets     = 128
	shapeWays     = 4
	maxShapeBytes = 4096
)

type shape struct {
	dialect  Dialect     // the same request builds to other SQL in another dialect
	skeleton []byte      // to find the set: wire.Flat.Skeleton
	kinds    []wire.Kind // kind of each free scalar, in wire order
	fixedRaw []byte      // the request's bytes around the free scalars, back to back
	fixedEnd []int32     // where in fixedRaw the bytes before each free scalar end
	id       int32       // index of the id among the free scalars
	db       []byte      // fixed, so the same in every request of the shape
	tx       bool
	codes    bool
	stmts    []shapeStmt
	consts   []wire.Value // bound values that are part of the shape (Limit, Offset), copied
}

type shapeStmt struct {
	kind Kind
	sql  []byte // shared by every hit: read only
	// Each parameter: k >= 0 is free scalar k, k < 0 is consts[-1-k].
	args []int32
	// run >= 0: args are the free scalars run, run+1, ... in order (the
	// common case), so a hit slices them instead of copying; else -1.
	run int32
}

type shapeCache struct {
	seed maphash.Seed
	sets [shapeSets]struct {
		ways [shapeWays]atomic.Pointer[shape]
		next atomic.Uint32 // the way the next new shape replaces
	}
}

var shapes = newShapeCache()

func newShapeCache() *shapeCache { return &shapeCache{seed: maphash.MakeSeed()} }

func (c *shapeCache) set(skeleton []byte) int {
	return int(maphash.Bytes(c.seed, skeleton) % shapeSets)
}

// recentShapes is how many shapes a Builder tries before scanning: enough
// for a caller that cycles through a few request shapes.
const recentShapes = 8

// recentShape is a shape a Builder used and the shape of the request it
// built next (nil until then). Callers mostly repeat a sequence of request
// shapes (a write, the read that checks it, ...), so the successor of the
// last shape used is tried first: a caller cycling through shapes then
// matches at the first try, where most recent first would try every other
// shape of the cycle before.
type recentShape struct{ s, next *shape }

// Cached builds raw from the shape cache: the request, or ok=false when raw
// is not a shape seen before (or not well-formed: Decode says why). The
// shapes this Builder used last are tried first, without scanning raw (a
// try that fails mostly fails within the first bytes that differ): the
// successor of the last one, then the others, most recent first; then the
// set of raw's skeleton in the shared cache.
func (b *Builder) Cached(raw []byte) (r *Request, ok bool) {
	b.Reset()
	guess := b.recent[0].next
	if guess != nil && guess.dialect == b.dialect && guess.match(raw, &b.free) {
		b.use(guess)
		return b.fromShape(guess)
	}
	for _, e := range b.recent {
		if e.s == nil {
			break
		}
		if e.s != guess && e.s.dialect == b.dialect && e.s.match(raw, &b.free) {
			b.use(e.s)
			return b.fromShape(e.s)
		}
	}
	b.scanned = b.flat.Scan(raw)
	if !b.scanned {
		return nil, false
	}
	set := &shapes.sets[shapes.set(b.flat.Skeleton)]
	for w := range set.ways {
		if s := set.ways[w].Load(); s != nil && s.dialect == b.dialect && s.match(raw, &b.free) {
			b.use(s)
			return b.fromShape(s)
		}
	}
	return nil, false
}

// use records s as the shape of the request being built: the successor of
// the shape used before, and the first of the recent shapes (moved up from
// where it was, or entering while the least recent one is dropped).
func (b *Builder) use(s *shape) {
	b.recent[0].next = s
	if b.recent[0].s == s {
		return // a repeat: already first
	}
	i := 1
	for i < len(b.recent)-1 && b.recent[i].s != s {
		i++
	}
	e := b.recent[i]
	if e.s != s {
		e = recentShape{s: s}
	}
	copy(b.recent[1:i+1], b.recent[:i])
	b.recent[0] = e
}

// match reports whether raw is of shape s, reading its free scalars into
// *free. raw matches when its bytes around the free scalars are the
// shape's, and each free scalar is one token of the shape's kind there:
// MessagePack being read front to back, raw then has the same structure as
// the request the shape was made from, value for value, with only the free
// scalars changed.
//
// The bytes around the scalars are compared first, stepping over each
// scalar by its header's length: a request of another shape (a caller
// cycling through a few) mostly fails there, having decoded nothing. The
// scalars are then decoded in place into *free; a failure clears what it
// read, so that no value into raw stays behind the slice's length, where
// Reset's clear would not reach it.
func (s *shape) match(raw []byte, free *[]wire.Value) bool {
	at, from := 0, int32(0)
	for _, end := range s.fixedEnd {
		seg := s.fixedRaw[from:end]
		if len(raw)-at < len(seg) || string(seg) != string(raw[at:at+len(seg)]) {
			return false
		}
		at += len(seg)
		n := wire.ScalarLen(raw[at:])
		if n == 0 {
			return false
		}
		at += n
		from = end
	}
	if string(s.fixedRaw[from:]) != string(raw[at:]) {
		return false
	}
	f := slices.Grow((*free)[:0], len(s.kinds))[:len(s.kinds)]
	at, from = 0, 0
	for k, kind := range s.kinds {
		at += int(s.fixedEnd[k] - from)
		from = s.fixedEnd[k]
		if c := raw[at]; c <= 0x7f && kind == wire.Int {
			// A positive fixint, the commonest free scalar (ids, small
			// numbers), read here rather than through a call.
			f[k] = wire.MakeInt(int64(c))
			at++
			continue
		}
		n := wire.ReadScalar(raw[at:], len(raw), &f[k])
		if n == 0 || f[k].Kind != kind {
			clear(f[:k+1])
			*free = f[:0]
			return false
		}
		at += n
	}
	*free = f
	return true
}

func (b *Builder) fromShape(s *shape) (*Request, bool) {
	id := b.free[s.id]
	if id.Int() < 0 { // the kind is integer; the builder refuses negative ids
		return nil, false
	}
	b.req = Request{ID: uint64(id.Int()), DB: s.db, Tx: s.tx, Codes: s.codes}
	for _, st := range s.stmts {
		stmt := Stmt{Kind: st.kind, SQL: st.sql}
		if st.run >= 0 {
			end := int(st.run) + len(st.args)
			stmt.Args = b.free[st.run:end:end]
		} else {
			for _, k := range st.args {
				if k >= 0 {
					b.args = append(b.args, b.free[k])
				} else {
					b.args = append(b.args, s.consts[-1-k])
				}
			}
		}
		b.stmts = append(b.stmts, stmt)
	}
	// Copied args are cut once b.args has stopped growing.
	a0 := 0
	for i, st := range s.stmts {
		if st.run < 0 {
			b.stmts[i].Args = b.args[a0 : a0+len(st.args) : a0+len(st.args)]
			a0 += len(st.args)
		}
	}
	b.req.Stmts = b.stmts
	return &b.req, true
}

// Remember records the shape of raw, which Build has just built into r,
// after a Cached miss on the same raw.
func (b *Builder) Remember(raw []byte, r *Request) {
	if !b.scanned || b.idPos < 0 || b.dbPos < 0 {
		return
	}
	f := &b.flat
	free := make([]bool, len(f.Spans))
	free[b.idPos] = true
	size := len(f.Skeleton)
	for _, st := range r.Stmts {
		size += len(st.SQL) + 4*len(st.Args)
		for _, a := range st.Args {
			if a.Pos() < 0 || a.Pos() >= len(free) {
				return // a value the builder made: not a shape this cache can replay
			}
			free[a.Pos()] = true
		}
	}
	for _, p := range b.checked {
		free[p] = false
	}
	if free[b.dbPos] {
		return // db is never bound; this would be a builder change to look at
	}
	s := &shape{dialect: b.dialect, skeleton: bytes.Clone(f.Skeleton), db: bytes.Clone(r.DB), tx: r.Tx, codes: r.Codes}
	slot := make([]int32, len(free)) // scalar index -> index among the free ones
	at := int32(0)
	for i, isFree := range free {
		if isFree {
			sp := f.Spans[i]
			var v wire.Value
			if wire.ReadScalar(raw[sp.From:], len(raw), &v) == 0 {
				return
			}
			slot[i] = int32(len(s.kinds))
			s.kinds = append(s.kinds, v.Kind)
			s.fixedRaw = append(s.fixedRaw, raw[at:sp.From]...)
			s.fixedEnd = append(s.fixedEnd, int32(len(s.fixedRaw)))
			at = sp.To
		}
	}
	s.fixedRaw = append(s.fixedRaw, raw[at:]...)
	s.id = slot[b.idPos]
	if size+len(s.fixedRaw) > maxShapeBytes {
		return
	}
	for _, st := range r.Stmts {
		ss := shapeStmt{kind: st.Kind, sql: bytes.Clone(st.SQL), args: make([]int32, len(st.Args)), run: -1}
		for j, a := range st.Args {
			if free[a.Pos()] {
				ss.args[j] = slot[a.Pos()]
				continue
			}
			c := a
			c.Bytes = bytes.Clone(a.Bytes)
			s.consts = append(s.consts, c)
			ss.args[j] = int32(-len(s.consts))
		}
		if len(ss.args) > 0 && ss.args[0] >= 0 {
			ss.run = ss.args[0]
			for j, k := range ss.args {
				if k != ss.run+int32(j) {
					ss.run = -1
					break
				}
			}
		}
		s.stmts = append(s.stmts, ss)
	}
	set := &shapes.sets[shapes.set(s.skeleton)]
	set.ways[set.next.Add(1)%shapeWays].Store(s)
	b.use(s)
}
