package engine

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#include "dal.h"
*/
import "C"

// The other numbers of dal.h that the exports need, taken from the header so
// it stays the one place where they are written. (Package main cannot
// include dal.h itself: cgo would see its exported functions declared twice,
// once by the header and once by cgo's own export header.)

// Version of the library, DAL_VERSION_*.
const (
	VersionMajor  = C.DAL_VERSION_MAJOR
	VersionMinor  = C.DAL_VERSION_MINOR
	VersionPatch  = C.DAL_VERSION_PATCH
	VersionNumber = C.DAL_VERSION_NUMBER
)

// StatsForceGC is dal_stats' only flag, DAL_STATS_FORCE_GC.
const StatsForceGC = C.DAL_STATS_FORCE_GC

// Indices of dal_stats' values, DAL_STAT_*.
const (
	StatGoHeapInuse      = C.DAL_STAT_GO_HEAP_INUSE
	StatGoHeapAlloc      = C.DAL_STAT_GO_HEAP_ALLOC
	StatGoGCCycles       = C.DAL_STAT_GO_GC_CYCLES
	StatGoSys            = C.DAL_STAT_GO_SYS
	StatHandlesLive      = C.DAL_STAT_HANDLES_LIVE
	StatBuffersLive      = C.DAL_STAT_BUFFERS_LIVE
	StatBufferBytesLive  = C.DAL_STAT_BUFFER_BYTES_LIVE
	StatSqliteMemoryUsed = C.DAL_STAT_SQLITE_MEMORY_USED
	StatSqliteMemoryPeak = C.DAL_STAT_SQLITE_MEMORY_PEAK
	StatConnectionsOpen  = C.DAL_STAT_CONNECTIONS_OPEN
	StatStatementsLive   = C.DAL_STAT_STATEMENTS_LIVE
	StatQueries          = C.DAL_STAT_QUERIES
	StatPlantedBytes     = C.DAL_STAT_PLANTED_BYTES
	StatGoroutines       = C.DAL_STAT_GOROUTINES
	StatPgPoolTotal      = C.DAL_STAT_PG_POOL_TOTAL
	StatPgPoolIdle       = C.DAL_STAT_PG_POOL_IDLE
	StatPgPoolAcquired   = C.DAL_STAT_PG_POOL_ACQUIRED
	StatPgConnections    = C.DAL_STAT_PG_CONNECTIONS
	StatPgServerSessions = C.DAL_STAT_PG_SERVER_SESSIONS
	StatPgStatements     = C.DAL_STAT_PG_STATEMENTS
	StatPgReplicaSkips   = C.DAL_STAT_PG_REPLICA_SKIPS
	StatCount            = C.DAL_STAT_COUNT
)
