// native_stats_source.hpp -- where the monitor gets native-side figures.
//
// The monitor must not depend on libdal.so or on the shim: it is linked into
// the shim, into tests with fakes, and could be linked into a driver that
// talks to the DAL directly.  So native figures (Go heap, SQLite, live
// buffers ...) arrive through this small interface, which the shim implements
// on top of dal_stats() and its own counters.
#pragma once

#include <cstdint>

namespace dalmon {

// Every field is a plain int64 so the shim can fill it straight from
// dal_stats() / dalshim_stats().  -1 means "not available" (the source does
// not know it), and the monitor then reports the layer as "n/a" instead of
// inventing a zero that would look like a flat, clean series.  Only the
// figures the monitor samples are here: a field is added with its Metric.
struct NativeStats {
  int64_t go_heap_inuse = -1;          // DAL_STAT_GO_HEAP_INUSE
  int64_t go_heap_alloc = -1;          // DAL_STAT_GO_HEAP_ALLOC (live bytes right after a forced GC)
  int64_t go_gc_cycles = -1;           // DAL_STAT_GO_GC_CYCLES
  int64_t go_sys = -1;                 // DAL_STAT_GO_SYS
  int64_t dal_buffers_live = -1;       // DAL_STAT_BUFFERS_LIVE
  int64_t dal_buffer_bytes_live = -1;  // DAL_STAT_BUFFER_BYTES_LIVE
  int64_t sqlite_memory_used = -1;     // DAL_STAT_SQLITE_MEMORY_USED
  int64_t sqlite_connections = -1;     // DAL_STAT_CONNECTIONS_OPEN
  int64_t dal_statements_live = -1;    // DAL_STAT_STATEMENTS_LIVE
  int64_t dal_planted_bytes = -1;      // DAL_STAT_PLANTED_BYTES (test-only planted leaks)
  int64_t goroutines = -1;             // DAL_STAT_GOROUTINES (dal.h 1.2)
  // PostgreSQL's (dal.h 1.2): -1 while no PostgreSQL handle is open.
  int64_t pg_pool_total = -1;           // DAL_STAT_PG_POOL_TOTAL
  int64_t pg_pool_idle = -1;            // DAL_STAT_PG_POOL_IDLE
  int64_t pg_pool_acquired = -1;        // DAL_STAT_PG_POOL_ACQUIRED
  int64_t pg_connections = -1;          // DAL_STAT_PG_CONNECTIONS
  int64_t pg_server_sessions = -1;      // DAL_STAT_PG_SERVER_SESSIONS
  int64_t pg_statements = -1;           // DAL_STAT_PG_STATEMENTS
  int64_t pg_replica_skips = -1;        // DAL_STAT_PG_REPLICA_SKIPS
  int64_t shim_buffers_live = -1;       // shim-owned buffers not yet released
  int64_t shim_buffer_bytes_live = -1;  // bytes held by them
};

// Implemented by the shim (dal_stats + shim counters) and by test fakes.
class NativeStatsSource {
 public:
  virtual ~NativeStatsSource() = default;

  // Fill `out` (fields the source does not know stay -1).  `force_gc` asks
  // the source to run a full Go GC first (DAL_STATS_FORCE_GC) so the Go heap
  // figure is live data, not garbage awaiting collection.  Called from the
  // sampling thread only, at sample points (it may stop the Go world for tens
  // of microseconds), never per query.  Returns false if nothing could be
  // read; it must not throw (the monitor calls it under its own lock).
  virtual bool read(bool force_gc, NativeStats& out) noexcept = 0;
};

// Process-wide source used by every run that was not given one explicitly
// (the C ABI path).  The pointer is not owned and must outlive every run that
// samples through it; nullptr unregisters (native layers become "n/a").
// Thread-safe: stored in an atomic.  Internal to whatever links the monitor
// (libdalshim.so, the addon, tests): never exported, a driver sees the
// native layers only through the dalmon_* C ABI.
void set_native_stats_source(NativeStatsSource* source) noexcept;
NativeStatsSource* native_stats_source() noexcept;

}  // namespace dalmon
