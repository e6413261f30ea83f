#include "metrics.hpp"

namespace dalmon {

namespace {
constexpr std::array<MetricInfo, kMetricCount> kMetrics{{
    {"js_heap_used", Unit::Bytes},
    {"js_heap_total", Unit::Bytes},
    {"js_external", Unit::Bytes},
    {"js_array_buffers", Unit::Bytes},
    {"rss", Unit::Bytes},
    {"rss_outside_js_heap", Unit::Bytes},
    {"malloc_in_use", Unit::Bytes},
    {"go_heap_inuse", Unit::Bytes},
    {"go_heap_alloc", Unit::Bytes},
    {"go_gc_cycles", Unit::Count},
    {"go_sys", Unit::Bytes},
    {"sqlite_memory", Unit::Bytes},
    {"dal_buffers", Unit::Count},
    {"dal_buffer_bytes", Unit::Bytes},
    {"dal_statements", Unit::Count},
    {"dal_connections", Unit::Count},
    {"shim_buffers", Unit::Count},
    {"shim_buffer_bytes", Unit::Bytes},
    {"planted_bytes", Unit::Bytes},
    {"goroutines", Unit::Count},
    {"pg_pool_total", Unit::Count},
    {"pg_pool_idle", Unit::Count},
    {"pg_pool_acquired", Unit::Count},
    {"pg_connections", Unit::Count},
    {"pg_server_sessions", Unit::Count},
    {"pg_statements", Unit::Count},
    {"pg_replica_skips", Unit::Count},
}};

// rss is judged net of the JS heap's committed size (js_heap_total): V8 and
// JSC grow their heap in steps when the allocation rate is high (measured:
// koffi in a worker, rows workload, heap_total 23 -> 32 MB at query 150k,
// RSS +7 MB with it, rss minus heap_total flat), and the js_heap layer
// already judges what lives in that heap.  Where the runtime has no JS heap
// figure (dalstress) nothing is subtracted.
// File-backed pages are held at their level when the run started (statm
// resident - shared is the anonymous part; the file-backed part is taken
// once, at the start): they are code and data of the executable and
// libraries, paged in as new paths first run, bounded by the files and
// never a leak (measured: Deno on a
// no-op target, RSS +2.3 MB over 25 s after warm-up, 1.1 MB of it the deno
// executable's text, malloc flat; the LEAK in rss that gave on short runs).
// The PostgreSQL connections are judged on every connection the DAL holds
// (pg_connections), in a pool or not, and on the server's view of them
// (pg_server_sessions): a pool's own total is bounded by pool_size, so a
// leak there ends in a wait, not growth; pool_total/idle/acquired are
// reported to explain a verdict.  pg_replica_skips is a running total of
// events, not a live count: reported, never judged.
// go_heap is judged on HeapAlloc, not HeapInuse: right after a forced GC
// HeapAlloc is exactly the live objects, while HeapInuse rounds up to spans
// and keeps fragmentation, which adds noise without adding information.
constexpr std::array<LayerInfo, kLayerCount> kLayers{{
    {"js_heap", Metric::JsHeapUsed, false},
    {"js_external", Metric::JsExternal, false},
    {"rss", Metric::RssOutsideJsHeap, false},
    {"malloc", Metric::MallocInUse, false},
    {"go_heap", Metric::GoHeapAlloc, true},
    {"sqlite", Metric::SqliteMemory, true},
    {"dal_buffers", Metric::DalBuffers, true},
    {"shim_buffers", Metric::ShimBuffers, true},
    {"statements", Metric::DalStatements, true},
    {"goroutines", Metric::Goroutines, true},
    {"pg_connections", Metric::PgConnections, true},
    {"pg_server_sessions", Metric::PgServerSessions, true},
    {"pg_statements", Metric::PgStatements, true},
}};
}  // namespace

const MetricInfo& metric_info(Metric m) noexcept { return kMetrics[static_cast<int>(m)]; }

const LayerInfo& layer_info(Layer l) noexcept { return kLayers[static_cast<int>(l)]; }

bool layer_from_name(std::string_view name, Layer& out) noexcept {
  for (int i = 0; i < kLayerCount; ++i) {
    if (kLayers[i].name == name) {
      out = static_cast<Layer>(i);
      return true;
    }
  }
  return false;
}

}  // namespace dalmon
