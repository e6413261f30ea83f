// monitor_stats_source.cpp -- feeds the monitor the native layers' figures.
//
// At each dalmon_sample the monitor reads Go heap, SQLite memory, live DAL
// and shim buffers, open statements, goroutines and the PostgreSQL figures
// through the NativeStatsSource that is
// registered (docs/leak-verdict.md). libdalshim registers this one when it is
// loaded, built on its own dalshim_stats(): so every driver that loads the
// shim -- dalstress, Node, Bun, Deno, koffi -- measures the native side the
// same way, and forcing a sample's GC also forces the Go GC
// (DALSHIM_STATS_FORCE_GC -> DAL_STATS_FORCE_GC).
#include <dal.h>

#include <cstdint>

#include "dalshim.h"
#include "native_stats_source.hpp"

namespace dalshim {
namespace {

static_assert(DALSHIM_STAT_TOTAL == DALSHIM_STAT_DAL_BASE + DAL_STAT_COUNT, "dalshim.h and dal.h disagree");

class ShimStatsSource final : public dalmon::NativeStatsSource {
 public:
  bool read(bool force_gc, dalmon::NativeStats& o) noexcept override {
    int64_t v[DALSHIM_STAT_TOTAL];
    int32_t n = dalshim_stats(force_gc ? DALSHIM_STATS_FORCE_GC : 0, v, DALSHIM_STAT_TOTAL);
    // Only the shim's own counters: no DAL is loaded (a --target that does
    // not use the kit's DAL).  Then none of the DAL's layers exist, the
    // shim's buffers included (they hold DAL responses), and the monitor
    // leaves them out of the run instead of showing a flat 0.
    if (n <= DALSHIM_STAT_COUNT) return false;
    auto at = [&](int i) -> int64_t { return i < n ? v[i] : -1; };
    auto dal = [&](int i) -> int64_t { return at(DALSHIM_STAT_DAL_BASE + i); };
    o.shim_buffers_live = at(DALSHIM_STAT_BUFFERS_LIVE);
    o.shim_buffer_bytes_live = at(DALSHIM_STAT_BUFFER_BYTES_LIVE);
    o.go_heap_inuse = dal(DAL_STAT_GO_HEAP_INUSE);
    o.go_heap_alloc = dal(DAL_STAT_GO_HEAP_ALLOC);
    o.go_gc_cycles = dal(DAL_STAT_GO_GC_CYCLES);
    o.go_sys = dal(DAL_STAT_GO_SYS);
    o.dal_buffers_live = dal(DAL_STAT_BUFFERS_LIVE);
    o.dal_buffer_bytes_live = dal(DAL_STAT_BUFFER_BYTES_LIVE);
    o.sqlite_memory_used = dal(DAL_STAT_SQLITE_MEMORY_USED);
    o.sqlite_connections = dal(DAL_STAT_CONNECTIONS_OPEN);
    o.dal_statements_live = dal(DAL_STAT_STATEMENTS_LIVE);
    o.dal_planted_bytes = dal(DAL_STAT_PLANTED_BYTES);
    // A 1.1 DAL writes none of these (at() gives -1, so their layers are
    // not in the run); the PG_* ones are -1 from the DAL itself on SQLite.
    o.goroutines = dal(DAL_STAT_GOROUTINES);
    o.pg_pool_total = dal(DAL_STAT_PG_POOL_TOTAL);
    o.pg_pool_idle = dal(DAL_STAT_PG_POOL_IDLE);
    o.pg_pool_acquired = dal(DAL_STAT_PG_POOL_ACQUIRED);
    o.pg_connections = dal(DAL_STAT_PG_CONNECTIONS);
    o.pg_server_sessions = dal(DAL_STAT_PG_SERVER_SESSIONS);
    o.pg_statements = dal(DAL_STAT_PG_STATEMENTS);
    o.pg_replica_skips = dal(DAL_STAT_PG_REPLICA_SKIPS);
    return true;
  }
};

// Registered at load, never unregistered: the shim is never unloaded
// (dlclose of a library holding a Go runtime is unsafe, see library.cpp).
ShimStatsSource g_source;
[[maybe_unused]] const bool g_registered = (dalmon::set_native_stats_source(&g_source), true);

}  // namespace

}  // namespace dalshim
