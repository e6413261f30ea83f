package engine

/*
#include <stdlib.h>
#include <string.h>
*/
import "C"

import (
	"sync"

	"dalkit/native/internal/sqlite"
)

// Planted leaks exist so that the stress kit can prove its leak detector
// works: a run with plant_leak set must be judged "leak" in the named layer,
// and a run without it must not. They are off unless dal_open's options ask
// for them, and cost one predictable branch per query when off.
//
//	go_cmem     C memory (malloc), never freed          (malloc / RSS layer)
//	go_heap     Go heap memory kept reachable forever   (Go heap layer)
//	sqlite_stmt statements prepared, never finalized    (SQLite layer)
//
// Each query adds N bytes of "debt"; memory is leaked once the debt reaches
// plantBlock, in one block of exactly that debt. So the leak is N bytes per
// query on average even for N = 1, instead of whatever the allocator's
// minimum block is (32 bytes for glibc malloc, 8 plus a slice header in Go),
// which would make "the smallest leak detected" meaningless. N >= plantBlock
// leaks one block per query, like a real per-call leak.
const plantBlock = 1024

type planter struct {
	kind  string
	bytes int

	mu       sync.Mutex
	debt     int64    // bytes owed but not yet leaked
	retained [][]byte // go_heap: reachable forever, so the GC cannot free it
}

func newPlanter(o *Options) planter {
	return planter{kind: o.PlantLeak, bytes: o.PlantLeakBytes}
}

func (p *planter) perQuery(d *database) {
	if p.kind == "" {
		return
	}
	if p.kind == "sqlite_stmt" {
		p.leakStatements(d)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.debt += int64(p.bytes)
	if p.debt < plantBlock {
		return
	}
	n := p.debt
	p.debt = 0
	switch p.kind {
	case "go_cmem":
		ptr := C.malloc(C.size_t(n))
		C.memset(ptr, 0xa5, C.size_t(n)) // touch it, so RSS sees it too
	case "go_heap":
		b := make([]byte, n)
		for i := range b {
			b[i] = 0xa5
		}
		p.retained = append(p.retained, b)
	}
	plantedBytes.Add(n)
}

// leakStatements prepares statements on the writer connection and never
// finalizes them, until the bytes leaked catch up with bytes*queries. A
// statement costs ~1 KiB, so one is leaked every few dozen queries.
func (p *planter) leakStatements(d *database) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.debt += int64(p.bytes)
	if p.debt <= 0 {
		return
	}
	c, err := d.lockWriter()
	if err != nil {
		return
	}
	defer d.unlockWriter()
	for p.debt > 0 {
		before := sqlite.MemoryUsed()
		s, _ := c.db.Prepare([]byte("SELECT 1"))
		if s == nil {
			return
		}
		statementsLive.Add(1)
		grown := sqlite.MemoryUsed() - before
		if grown < 64 {
			grown = 64 // another thread freed memory meanwhile; never loop forever
		}
		p.debt -= grown
		plantedBytes.Add(grown)
	}
}
