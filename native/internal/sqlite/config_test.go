package sqlite

import (
	"os"
	"testing"
)

// The tests of this package keep SQLite's memory statistics on beside the
// counting allocator, so its figure can be checked against SQLite's own.
func TestMain(m *testing.M) {
	keepMemStatus = true
	os.Exit(m.Run())
}

func TestCountingAllocatorMatchesSQLiteStatistics(t *testing.T) {
	cfg := Configuration()
	if cfg.HostInitialized || !cfg.MultiThread || cfg.NoMemStatus || !cfg.CountingAllocator {
		t.Fatalf("configuration %+v (%s): want multi-thread, statistics on, counting allocator", cfg, cfg)
	}
	check := func(when string) int64 {
		t.Helper()
		got, want := MemoryUsed(), statusMemoryUsed()
		if got != want || got < 0 {
			t.Fatalf("%s: counting allocator says %d bytes, sqlite3_memory_used %d", when, got, want)
		}
		return got
	}
	before := check("at start")
	c, err := Open(":memory:", OpenReadWrite|OpenCreate|OpenNoMutex, 1000)
	if err != nil {
		t.Fatal(err)
	}
	// Allocations of every size class, reallocations (growing statements and
	// pages) and frees.
	mustExec(t, c, `CREATE TABLE t(a, b)`)
	mustExec(t, c, `WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 2000)
		INSERT INTO t SELECT i, zeroblob(i * 37 % 5000) FROM k`)
	open := check("with a database")
	if open <= before {
		t.Fatalf("a database with 2000 rows took no memory: %d -> %d", before, open)
	}
	mustExec(t, c, `DELETE FROM t WHERE a % 2 = 0`)
	check("after a delete")
	if peak := MemoryHighwater(); peak < open {
		t.Fatalf("peak %d below a figure seen before (%d)", peak, open)
	}
	c.Close()
	if after := check("after close"); after != before {
		t.Fatalf("closing the database left %d bytes of %d", after-before, open-before)
	}
}
