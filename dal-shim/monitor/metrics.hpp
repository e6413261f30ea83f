// metrics.hpp -- the fixed vocabulary of metrics, layers and samples.
//
// Names here appear verbatim in the text and JSON reports of every driver,
// so they are defined once, in one table, and never spelled elsewhere.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace dalmon {

enum class Metric : int {
  JsHeapUsed = 0,    // runtime's heap used (Node heapUsed; the seed printed it as "buffers")
  JsHeapTotal,       // runtime's heap total (Node heapTotal; the seed's "total")
  JsExternal,        // memory owned by JS objects outside the heap (Node external)
  JsArrayBuffers,    // ArrayBuffer backing stores (Node arrayBuffers, part of external)
  Rss,               // resident set size
  RssOutsideJsHeap,  // anonymous rss minus js_heap_total: what the rss layer judges
  MallocInUse,       // glibc bytes in use
  GoHeapInuse,       // Go heap spans in use
  GoHeapAlloc,       // Go live objects (after forced GC)
  GoGcCycles,        // completed Go GC cycles
  GoSys,             // bytes the Go runtime got from the OS
  SqliteMemory,      // sqlite3_memory_used()
  DalBuffers,        // DAL responses not yet freed (count)
  DalBufferBytes,    // bytes in them
  DalStatements,     // prepared statements not finalized (count)
  DalConnections,    // open SQLite connections (count)
  ShimBuffers,       // shim buffers not yet released (count)
  ShimBufferBytes,   // bytes in them
  PlantedBytes,      // bytes leaked on purpose by plant_leak (test runs)
  Goroutines,        // live goroutines of the DAL's Go runtime
  PgPoolTotal,       // PostgreSQL: connections in the pools
  PgPoolIdle,        // PostgreSQL: of those, idle
  PgPoolAcquired,    // PostgreSQL: of those, taken by a request
  PgConnections,     // PostgreSQL: connections the DAL holds open, in a pool or not
  PgServerSessions,  // PostgreSQL: pg_stat_activity rows for those connections
  PgStatements,      // PostgreSQL: statements prepared on the servers
  PgReplicaSkips,    // PostgreSQL: reads that passed over a downed replica (a running total)
  Count
};
inline constexpr int kMetricCount = static_cast<int>(Metric::Count);

enum class Unit { Bytes, Count };

struct MetricInfo {
  std::string_view name;  // JSON key and text label
  Unit unit;
};

const MetricInfo& metric_info(Metric m) noexcept;

// A layer is a place where memory can leak; each is judged on one metric.
enum class Layer : int {
  JsHeap = 0,
  JsExternal,
  Rss,
  Malloc,
  GoHeap,
  Sqlite,
  DalBuffers,
  ShimBuffers,
  Statements,
  Goroutines,
  PgConnections,
  PgServerSessions,
  PgStatements,
  Count
};
inline constexpr int kLayerCount = static_cast<int>(Layer::Count);

struct LayerInfo {
  std::string_view name;
  Metric metric;
  // The layer belongs to the DAL (Go heap, SQLite, DAL and shim buffers,
  // statements): its figures come from the native source only while a DAL
  // is loaded.  A run that never read them (a --target that does not use
  // the kit's DAL) does not list the layer at all, rather than calling a
  // layer that does not exist "n/a" (docs/leak-verdict.md).  The pg_*
  // layers are the DAL's in the same way: on SQLite the DAL reports -1 for
  // them, and they are not listed either.
  bool dal = false;
};

const LayerInfo& layer_info(Layer l) noexcept;

// Look a layer up by name (for threshold overrides); returns false if unknown.
bool layer_from_name(std::string_view name, Layer& out) noexcept;

// One sample point.  -1 in `values` means "not available at this point".
struct Sample {
  int64_t queries = 0;  // queries completed when the sample was taken (x axis)
  double wall_s = 0;    // since the run started
  double cpu_s = 0;     // user + system, whole process
  std::array<int64_t, kMetricCount> values{};
  // The allocation tracer's figure per DSO, indexed by the tracer's DSO
  // index (dso_stats_source.hpp); empty when no tracer is loaded.  Not a
  // Metric: which DSOs exist is known only at run time (native_layers.hpp).
  std::vector<int64_t> dso_bytes;

  int64_t& operator[](Metric m) noexcept { return values[static_cast<int>(m)]; }
  int64_t operator[](Metric m) const noexcept { return values[static_cast<int>(m)]; }
};

}  // namespace dalmon
