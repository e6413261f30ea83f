package main

/*
#include <stdint.h>
#include "tls.h"
*/
import "C"

import (
	"runtime"
	"unsafe"

	"dalkit/native/internal/engine"
	"dalkit/native/internal/sqlite"
)

// Keep in step with DAL_VERSION_* in include/dal.h.
const (
	versionMajor  = 1
	versionMinor  = 0
	versionPatch  = 0
	versionNumber = versionMajor*1000000 + versionMinor*1000 + versionPatch
)

// versionString is allocated once in C memory and never freed: dal.h
// promises a static string.
var versionString = C.CString("dal 1.0.0 (sqlite " + sqlite.Version() + ", " + runtime.Version() + ")")

//export dal_version
func dal_version() C.int32_t { return versionNumber }

//export dal_version_string
func dal_version_string() *C.char { return versionString }

// Indices of dal_stats, as DAL_STAT_* in include/dal.h.
const (
	statGoHeapInuse = iota
	statGoHeapAlloc
	statGoGCCycles
	statGoSys
	statHandlesLive
	statBuffersLive
	statBufferBytesLive
	statSqliteMemoryUsed
	statSqliteMemoryPeak
	statConnectionsOpen
	statStatementsLive
	statQueries
	statPlantedBytes
	statCount
)

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
	if flags&1 != 0 {
		runtime.GC()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	c := engine.ReadCounters()
	var all [statCount]int64
	all[statGoHeapInuse] = int64(ms.HeapInuse)
	all[statGoHeapAlloc] = int64(ms.HeapAlloc)
	all[statGoGCCycles] = int64(ms.NumGC)
	all[statGoSys] = int64(ms.Sys)
	all[statHandlesLive] = c.HandlesLive
	all[statBuffersLive] = liveBuffers.count.Load() + int64(C.dal__pending_live())
	all[statBufferBytesLive] = liveBuffers.bytes.Load() + int64(C.dal__pending_bytes())
	all[statSqliteMemoryUsed] = sqlite.MemoryUsed()
	all[statSqliteMemoryPeak] = sqlite.MemoryHighwater()
	all[statConnectionsOpen] = c.ConnectionsOpen
	all[statStatementsLive] = c.StatementsLive
	all[statQueries] = c.Queries
	all[statPlantedBytes] = c.PlantedBytes
	n := min(int(capacity), statCount)
	if n > 0 {
		copy(unsafe.Slice((*int64)(unsafe.Pointer(values)), n), all[:n])
	}
	return C.int32_t(n)
}
