package sqlite

/*
#cgo nocallback dal_sqlite_counted_used
#cgo nocallback dal_sqlite_counted_peak
#include <sqlite3.h>
#include "config.h"
*/
import "C"

import (
	"fmt"
	"strings"
	"sync"
)

// Config is the process-wide SQLite configuration in effect (config.c).
type Config struct {
	// HostInitialized: SQLite had been initialized in this process before
	// the DAL (by the host or another library sharing libsqlite3), so
	// sqlite3_config was refused and that configuration is kept.
	HostInitialized bool
	MultiThread     bool // SQLITE_CONFIG_MULTITHREAD
	NoMemStatus     bool // SQLITE_CONFIG_MEMSTATUS 0
	// CountingAllocator: MemoryUsed counts through the DAL's allocator
	// wrapper; otherwise it is sqlite3_memory_used().
	CountingAllocator bool
}

// String describes the configuration for dal_version_string().
func (c Config) String() string {
	if c.HostInitialized {
		return "initialized before the DAL, configuration kept, memory from sqlite3_memory_used"
	}
	var parts []string
	if c.MultiThread {
		parts = append(parts, "multi-thread")
	}
	if c.NoMemStatus {
		parts = append(parts, "memstatus off")
	} else {
		parts = append(parts, "memstatus on")
	}
	if c.CountingAllocator {
		parts = append(parts, "counting allocator")
	}
	return strings.Join(parts, ", ")
}

var (
	configOnce sync.Once
	config     Config
	configErr  error
	// keepMemStatus leaves SQLite's memory statistics on; only tests set it,
	// before the first SQLite call, to check the counting allocator's figure
	// against them.
	keepMemStatus bool
)

// configure applies the configuration once, before the package's first
// call into SQLite (Open, MemoryUsed), on the caller's thread: a host that
// initializes SQLite itself first is then seen as such, where doing it at
// library load would race with the host's own start-up.
func configure() {
	configOnce.Do(func() {
		keep := C.int(0)
		if keepMemStatus {
			keep = 1
		}
		bits := int(C.dal_sqlite_configure(keep))
		if bits < 0 {
			rc := -1 - bits
			configErr = &Error{Code: rc, Msg: fmt.Sprintf("sqlite3_initialize failed: %s", C.GoString(C.sqlite3_errstr(C.int(rc))))}
			return
		}
		config = Config{
			HostInitialized:   bits == 0,
			MultiThread:       bits&C.DAL_CFG_MULTITHREAD != 0,
			NoMemStatus:       bits&C.DAL_CFG_NO_MEMSTATUS != 0,
			CountingAllocator: bits&C.DAL_CFG_COUNTING != 0,
		}
	})
}

// Configuration applies the configuration if not done yet and returns it.
func Configuration() Config {
	configure()
	return config
}

// MemoryUsed is the bytes SQLite holds, all connections of the process:
// the counting allocator's figure, or sqlite3_memory_used() without it.
func MemoryUsed() int64 {
	configure()
	if config.CountingAllocator {
		return int64(C.dal_sqlite_counted_used())
	}
	return statusMemoryUsed()
}

// statusMemoryUsed is sqlite3_memory_used(): SQLite's own figure, kept only
// while its memory statistics are on.
func statusMemoryUsed() int64 { return int64(C.sqlite3_memory_used()) }

// MemoryHighwater is the most MemoryUsed has been.
func MemoryHighwater() int64 {
	configure()
	if config.CountingAllocator {
		return int64(C.dal_sqlite_counted_peak())
	}
	return int64(C.sqlite3_memory_highwater(0))
}
