// Package planted holds the DAL's planted leaks: test-only code, kept out of
// the engine proper, that leaks memory on purpose so the stress kit can prove
// its leak detector works. A run with the dal_open option plant_leak set must
// be judged "leak" in the named layer, and a run without it must not. A
// handle without the option has no Planter and pays one nil check per query.
//
//	go_cmem     C memory (malloc), never freed          (malloc / RSS layer)
//	go_heap     Go heap memory kept reachable forever   (Go heap layer)
//	sqlite_stmt statements prepared, never finalized    (SQLite layer)
//	goroutine   a goroutine that never exits             (goroutines layer)
//	connection  a PostgreSQL connection never closed     (pg_connections layers)
//
// The last two leak objects, not bytes: one every N queries (plant_leak_every).
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

// Target is where the backend's plants leak, for the database a query used:
// sqlite_stmt prepares statements it never finalizes until at least n bytes
// of SQLite memory are gone, and returns the bytes leaked (the engine's
// database, on its writer connection); connection opens a connection it
// never closes (the PostgreSQL backend).
type Target interface {
	LeakStatements(n int64) int64
	LeakConnection()
}

// IsCounted reports whether a plant_leak kind leaks objects, one every N
// queries (plant_leak_every), rather than bytes (plant_leak_bytes).
func IsCounted(kind string) bool { return kind == "goroutine" || kind == "connection" }

// DefaultEvery is plant_leak_every's default for a counted kind: a
// goroutine every query (about 2.5 KiB each: stack and g); a connection
// every 1000 queries, so that a test's run of tens of thousands of queries
// stays well under a server's max_connections (docs/leak-verdict.md).
func DefaultEvery(kind string) int {
	if kind == "connection" {
		return 1000
	}
	return 1
}

// Planter leaks bytesPerQuery bytes per query in one layer, or one object
// every `every` queries.
type Planter struct {
	kind          string
	bytesPerQuery int64
	every         int64

	mu       sync.Mutex
	debt     int64    // bytes owed but not yet leaked; counted kinds: queries since the last leak
	retained [][]byte // go_heap: reachable forever, so the GC cannot free it
}

// New returns the planter for a plant_leak option value, its byte count
// and its interval (only one of them applies: IsCounted), or nil when kind
// is "" (no plant).
func New(kind string, bytesPerQuery, every int) *Planter {
	if kind == "" {
		return nil
	}
	return &Planter{kind: kind, bytesPerQuery: int64(bytesPerQuery), every: int64(every)}
}

// forever is what planted goroutines wait on: it is never closed.
var forever = make(chan struct{})

// waitForever is a planted goroutine's whole life; a named function, so
// that a stack dump (runtime.Stack) shows which goroutines are planted.
func waitForever() { <-forever }

// PerQuery runs after every successful query; t is the database the query
// used.
func (p *Planter) PerQuery(t Target) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if IsCounted(p.kind) {
		if p.debt++; p.debt < p.every {
			return
		}
		p.debt = 0
		if p.kind == "goroutine" {
			go waitForever()
		} else {
			t.LeakConnection()
		}
		return
	}
	p.debt += p.bytesPerQuery
	if p.kind == "sqlite_stmt" {
		// A statement costs ~1 KiB, so one is leaked every few dozen queries;
		// the debt may go negative by the last statement's overshoot.
		if p.debt > 0 {
			n := t.LeakStatements(p.debt)
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
