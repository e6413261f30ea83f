// Package planted holds the DAL's planted leaks: test-only code, kept out of
// the engine proper, that leaks memory on purpose so the stress kit can prove
// its leak detector works. A run with the dal_open option plant_leak set must
// be judged "leak" in the named layer, and a run without it must not. A
// handle without the option has no Planter and pays one nil check per query.
//
//	go_cmem     C memory (malloc), never freed          (malloc / RSS layer)
//	go_heap     Go heap memory kept reachable forever   (Go heap layer)
//	sqlite_stmt statements prepared, never finalized    (SQLite layer)
//
// Each query adds N bytes (plant_leak_bytes) of "debt"; memory is leaked once
// the debt reaches Block, in one block of exactly that debt. So the leak is N
// bytes per query on average even for N = 1, instead of whatever the
// allocator's minimum block is (32 bytes for glibc malloc, 8 plus a slice
// header in Go), which would make "the smallest leak detected" meaningless.
// N >= Block leaks one block per query, like a real per-call leak.
package planted

/*
#include <stdlib.h>
#include <string.h>
*/
import "C"

import (
	"sync"
	"sync/atomic"
)

// Block is the leak granularity of go_cmem and go_heap.
const Block = 1024

// bytesPlanted is the process-wide total, reported by dal_stats.
var bytesPlanted atomic.Int64

// Total returns the bytes leaked on purpose since the library loaded.
func Total() int64 { return bytesPlanted.Load() }

// Statements is where sqlite_stmt leaks: something that prepares statements
// it never finalizes until at least n bytes of SQLite memory are gone, and
// returns the bytes leaked (the engine's database, on its writer connection).
type Statements interface {
	LeakStatements(n int64) int64
}

// Planter leaks bytesPerQuery bytes per query in one layer.
type Planter struct {
	kind          string
	bytesPerQuery int64

	mu       sync.Mutex
	debt     int64    // bytes owed but not yet leaked
	retained [][]byte // go_heap: reachable forever, so the GC cannot free it
}

// New returns the planter for a plant_leak option value and its byte count,
// or nil when kind is "" (no plant).
func New(kind string, bytesPerQuery int) *Planter {
	if kind == "" {
		return nil
	}
	return &Planter{kind: kind, bytesPerQuery: int64(bytesPerQuery)}
}

// PerQuery runs after every successful query; stmts is the database the
// query used.
func (p *Planter) PerQuery(stmts Statements) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.debt += p.bytesPerQuery
	if p.kind == "sqlite_stmt" {
		// A statement costs ~1 KiB, so one is leaked every few dozen queries;
		// the debt may go negative by the last statement's overshoot.
		if p.debt > 0 {
			n := stmts.LeakStatements(p.debt)
			p.debt -= n
			bytesPlanted.Add(n)
		}
		return
	}
	if p.debt < Block {
		return
	}
	n := p.debt
	p.debt = 0
	switch p.kind {
	case "go_cmem":
		ptr := C.malloc(C.size_t(n))
		if ptr == nil {
			return
		}
		C.memset(ptr, 0xa5, C.size_t(n)) // touch it, so RSS sees it too
	case "go_heap":
		b := make([]byte, n)
		for i := range b {
			b[i] = 0xa5
		}
		p.retained = append(p.retained, b)
	}
	bytesPlanted.Add(n)
}
