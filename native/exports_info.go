package main

/*
#include <stdint.h>
#include "tls.h"
const char *dal_version_unknown(void); // version.c
*/
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"dalkit/native/internal/engine"
	"dalkit/native/internal/postgres"
	"dalkit/native/internal/sqlite"
)

// versionString is allocated once in C memory and never freed: dal.h
// promises a static string. It is made on first use, not at load, because
// it reports the SQLite configuration in effect, which is settled on the
// DAL's first SQLite call (internal/sqlite, config.c). A package variable,
// not a closure's result, so that leak checkers scanning the library's
// globals see it is still referenced.
var (
	versionString *C.char
	versionOnce   sync.Once
)

func makeVersionString() {
	versionString = C.CString(fmt.Sprintf("dal %d.%d.%d (sqlite %s, %s; sqlite config: %s)",
		engine.VersionMajor, engine.VersionMinor, engine.VersionPatch, sqlite.Version(), runtime.Version(), sqlite.Configuration()))
}

//export dal_version
func dal_version() C.int32_t { return engine.VersionNumber }

//export dal_version_string
func dal_version_string() (s *C.char) {
	defer func() {
		if r := recover(); r != nil {
			recovered(r, "dal_version_string")
		}
		if s == nil {
			s = C.dal_version_unknown()
		}
	}()
	versionOnce.Do(makeVersionString)
	return versionString
}

//export dal_stats
func dal_stats(flags C.int32_t, values *C.int64_t, capacity C.int32_t) (ret C.int32_t) {
	defer func() {
		if r := recover(); r != nil {
			ret = C.int32_t(recovered(r, "dal_stats"))
		}
	}()
	if values == nil && capacity > 0 {
		setError(engine.ENull, "dal_stats: values is NULL")
		return C.int32_t(engine.ENull)
	}
	if capacity < 0 {
		setError(engine.EMisuse, "dal_stats: capacity is negative")
		return C.int32_t(engine.EMisuse)
	}
	if flags&^engine.StatsForceGC != 0 {
		setError(engine.EMisuse, fmt.Sprintf("dal_stats: unknown flag bits 0x%x; the only flag is DAL_STATS_FORCE_GC (1)", uint32(flags&^engine.StatsForceGC)))
		return C.int32_t(engine.EMisuse)
	}
	if flags&engine.StatsForceGC != 0 {
		runtime.GC()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	c := engine.ReadCounters()
	var all [engine.StatCount]int64
	all[engine.StatGoHeapInuse] = int64(ms.HeapInuse)
	all[engine.StatGoHeapAlloc] = int64(ms.HeapAlloc)
	all[engine.StatGoGCCycles] = int64(ms.NumGC)
	all[engine.StatGoSys] = int64(ms.Sys)
	all[engine.StatHandlesLive] = c.HandlesLive
	all[engine.StatBuffersLive] = liveBuffers.count.Load() + int64(C.dal__pending_live())
	all[engine.StatBufferBytesLive] = liveBuffers.bytes.Load() + int64(C.dal__pending_bytes())
	all[engine.StatSqliteMemoryUsed] = sqlite.MemoryUsed()
	all[engine.StatSqliteMemoryPeak] = sqlite.MemoryHighwater()
	all[engine.StatConnectionsOpen] = c.ConnectionsOpen
	all[engine.StatStatementsLive] = c.StatementsLive
	all[engine.StatQueries] = c.Queries
	all[engine.StatPlantedBytes] = c.PlantedBytes
	all[engine.StatGoroutines] = int64(runtime.NumGoroutine())
	n := min(int(capacity), engine.StatCount)
	// The server's pg_stat_activity costs a round trip per server: asked
	// only by a caller that wants that figure.
	pg := postgres.ReadFigures(n > engine.StatPgServerSessions)
	pgFigures := [...]struct {
		index int
		value int64
	}{
		{engine.StatPgPoolTotal, pg.PoolTotal},
		{engine.StatPgPoolIdle, pg.PoolIdle},
		{engine.StatPgPoolAcquired, pg.PoolAcquired},
		{engine.StatPgConnections, pg.Connections},
		{engine.StatPgServerSessions, pg.ServerSessions},
		{engine.StatPgStatements, pg.Statements},
		{engine.StatPgReplicaSkips, pg.ReplicaSkips},
	}
	for _, f := range pgFigures {
		all[f.index] = f.value
		if pg.Handles == 0 {
			all[f.index] = -1 // no PostgreSQL handle open: the figure does not apply (dal.h)
		}
	}
	if n > 0 {
		copy(unsafe.Slice((*int64)(unsafe.Pointer(values)), n), all[:n])
	}
	return C.int32_t(n)
}
