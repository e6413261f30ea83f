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
//	go_cmem     C.malloc(N) per query, never freed     (malloc / RSS layer)
//	go_heap     N bytes per query retained in Go heap  (Go heap layer)
//	sqlite_stmt statements prepared and never finalized, about N bytes of
//	            SQLite memory per query on average     (SQLite layer)
type planter struct {
	kind  string
	bytes int

	mu       sync.Mutex
	retained [][]byte // go_heap: reachable forever, so the GC cannot free it
	debt     int64    // sqlite_stmt: bytes owed but not yet leaked
}

func newPlanter(o *Options) planter {
	return planter{kind: o.PlantLeak, bytes: o.PlantLeakBytes}
}

func (p *planter) perQuery(d *database) {
	if p.kind == "" {
		return
	}
	switch p.kind {
	case "go_cmem":
		ptr := C.malloc(C.size_t(p.bytes))
		C.memset(ptr, 0xa5, C.size_t(p.bytes)) // touch it, so RSS sees it too
		plantedBytes.Add(int64(p.bytes))
	case "go_heap":
		b := make([]byte, p.bytes)
		for i := range b {
			b[i] = 0xa5
		}
		p.mu.Lock()
		p.retained = append(p.retained, b)
		p.mu.Unlock()
		plantedBytes.Add(int64(p.bytes))
	case "sqlite_stmt":
		p.leakStatements(d)
	}
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
