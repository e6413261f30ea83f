#include "stats_fallback.hpp"

#include <dal.h>

#include <cstdint>

#include "dalshim.h"
#include "native_stats_source.h"

namespace dalstress {

namespace {

static_assert(DALSHIM_STAT_TOTAL == DALSHIM_STAT_DAL_BASE + DAL_STAT_COUNT, "dalshim.h and dal.h disagree");

class ShimStatsSource final : public dalmon::NativeStatsSource {
 public:
  bool read(bool force_gc, dalmon::NativeStats& o) noexcept override {
    int64_t v[DALSHIM_STAT_TOTAL];
    int32_t n = dalshim_stats(force_gc ? DALSHIM_STATS_FORCE_GC : 0, v, DALSHIM_STAT_TOTAL);
    if (n <= 0) return false;
    auto at = [&](int i) -> int64_t { return i < n ? v[i] : -1; };
    auto dal = [&](int i) -> int64_t { return at(DALSHIM_STAT_DAL_BASE + i); };
    o.shim_buffers_live = at(DALSHIM_STAT_BUFFERS_LIVE);
    o.shim_buffer_bytes_live = at(DALSHIM_STAT_BUFFER_BYTES_LIVE);
    o.go_heap_inuse = dal(DAL_STAT_GO_HEAP_INUSE);
    o.go_heap_alloc = dal(DAL_STAT_GO_HEAP_ALLOC);
    o.go_gc_cycles = dal(DAL_STAT_GO_GC_CYCLES);
    o.go_sys = dal(DAL_STAT_GO_SYS);
    o.dal_handles_live = dal(DAL_STAT_HANDLES_LIVE);
    o.dal_buffers_live = dal(DAL_STAT_BUFFERS_LIVE);
    o.dal_buffer_bytes_live = dal(DAL_STAT_BUFFER_BYTES_LIVE);
    o.sqlite_memory_used = dal(DAL_STAT_SQLITE_MEMORY_USED);
    o.sqlite_connections = dal(DAL_STAT_CONNECTIONS_OPEN);
    o.dal_statements_live = dal(DAL_STAT_STATEMENTS_LIVE);
    o.dal_queries = dal(DAL_STAT_QUERIES);
    o.dal_planted_bytes = dal(DAL_STAT_PLANTED_BYTES);
    return true;
  }
};

ShimStatsSource g_fallback;
bool g_installed = false;

}  // namespace

const char* ensure_native_stats_source() {
  if (dalmon::native_stats_source() != nullptr) return "shim";
  dalmon::set_native_stats_source(&g_fallback);
  g_installed = true;
  return "dalstress";
}

void remove_native_stats_fallback() {
  if (g_installed && dalmon::native_stats_source() == &g_fallback) dalmon::set_native_stats_source(nullptr);
  g_installed = false;
}

}  // namespace dalstress
