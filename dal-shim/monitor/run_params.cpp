#include "run_params.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kv_options.hpp"
#include "numbers.hpp"

namespace dalmon {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;

// Index order follows Layer.  The reasoning per row is in docs/leak-verdict.md;
// in short: exact byte counters (malloc, Go heap after GC, SQLite) get a small
// slope limit and 1-2 MiB of growth, page-granular and allocator-shaped RSS
// gets 4 MiB, JS heaps (GC'd but with V8/JSC bookkeeping jitter) 2 MiB, and
// live-object counts, which are exact, flag any persistent growth of one.
// Goroutines and connections are counts too, but come and go with the work
// (pgx and the Go runtime start goroutines of their own; a pool opens up
// to pool_size, default 8, as it is needed): they need 16 goroutines and
// 8 connections of growth after warm-up, which a pool that grew and then
// stayed flat never gives, and a leak of one connection per 1,000 queries
// gives 5x over in a 50,000-query run.
// Every byte row still catches 16 B/query over 1M queries (12.8 MB after a
// 20 % warm-up) with at least 3x margin on the slope.
constexpr std::array<LayerThreshold, kLayerCount> kDefaults{{
    {1.0, 2 * kMiB},  // js_heap
    {1.0, 2 * kMiB},  // js_external
    {2.0, 4 * kMiB},  // rss
    {0.5, 2 * kMiB},  // malloc
    {0.5, 1 * kMiB},  // go_heap
    {0.5, 1 * kMiB},  // sqlite
    {0.0, 1},         // dal_buffers
    {0.0, 1},         // shim_buffers
    {0.0, 1},         // statements
    {0.0, 16},        // goroutines
    {0.0, 8},         // pg_connections
    {0.0, 8},         // pg_server_sessions
    {0.0, 1},         // pg_statements
}};

// The tracer's native:<dso> layers are byte counts like malloc, but
// sampled: at the default 64 KiB interval a DSO's estimate moves by about
// sqrt(64 KiB x its churning live bytes) between samples (docs/attribution.md),
// so the growth bar is the rss layer's 4 MiB rather than malloc's 2 MiB.
// 16 B/query over 1M queries (12.8 MB after warm-up) still clears it 3x.
constexpr LayerThreshold kNativeDefault{1.0, 4 * kMiB};

constexpr std::array<UnitWords, 2> kUnits{{
    {"query", "queries", "Queries", "q"},
    {"iteration", "iterations", "Iterations", "it"},
}};

bool parse_flag(std::string_view v, bool& out) {
  if (v == "1" || v == "true") {
    out = true;
    return true;
  }
  if (v == "0" || v == "false") {
    out = false;
    return true;
  }
  return false;
}

// Integers and numbers go through the kit's one number parser, so "1e8" or
// "100_000_000" mean the same here as on dalstress's command line.
bool int_in(std::string_view v, int64_t lo, int64_t hi, int64_t& out) {
  auto i = dalkit::parse_int(v);
  if (!i || *i < lo || *i > hi) return false;
  out = *i;
  return true;
}

bool apply(RunParams& p, std::string_view key, std::string_view val, std::string& err) {
  auto bad = [&](const char* what) {
    err = "bad value for '" + std::string(key) + "': '" + std::string(val) + "' (" + what + ")";
    return false;
  };
  int64_t i = 0;
  if (key == "driver" || key == "runtime" || key == "mode") {
    (key == "driver" ? p.driver : key == "runtime" ? p.runtime : p.mode) = std::string(val);
    return true;
  }
  if (key == "queries" || key == "sample_every") {
    if (!int_in(val, 0, INT64_MAX, i)) return bad("integer >= 0");
    (key == "queries" ? p.queries_planned : p.sample_every) = i;
    return true;
  }
  if (key == "warmup") {
    // Above 0.9 too few samples remain after warm-up for a slope.
    auto d = dalkit::parse_double(val);
    if (!d || *d < 0 || *d > 0.9) return bad("share 0..0.9");
    p.warmup_share = *d;
    return true;
  }
  if (key == "threads") {
    if (!int_in(val, 1, 4096, i)) return bad("integer 1..4096");
    p.threads = static_cast<int32_t>(i);
    return true;
  }
  if (key == "unit") {
    if (val == unit_words(WorkUnit::Query).name)
      p.unit = WorkUnit::Query;
    else if (val == unit_words(WorkUnit::Iteration).name)
      p.unit = WorkUnit::Iteration;
    else
      return bad("query or iteration");
    return true;
  }
  if (key == "force_gc" || key == "verbose") {
    if (!parse_flag(val, key == "force_gc" ? p.force_gc : p.verbose)) return bad("0 or 1");
    return true;
  }
  if (key == "min_samples") {
    if (!int_in(val, 4, 1000000, i)) return bad("integer 4..1000000");
    p.min_samples = static_cast<int32_t>(i);
    return true;
  }
  auto dot = key.find('.');
  if (dot != std::string_view::npos) {
    std::string_view kind = key.substr(0, dot);
    Layer layer;
    const std::string_view which = key.substr(dot + 1);
    LayerThreshold* t = nullptr;
    if (which == "native")
      t = &p.native_threshold;
    else if (layer_from_name(which, layer))
      t = &p.thresholds[static_cast<int>(layer)];
    if ((kind == "slope" || kind == "growth") && t != nullptr) {
      auto d = dalkit::parse_double(val);
      if (!d || *d < 0) return bad("number >= 0");
      (kind == "slope" ? t->slope_limit : t->min_growth) = *d;
      return true;
    }
  }
  err = "unknown key '" + std::string(key) +
        "' (valid: driver runtime mode queries sample_every warmup threads unit force_gc verbose "
        "min_samples slope.<layer> growth.<layer>, <layer> also native)";
  return false;
}
}  // namespace

const std::array<LayerThreshold, kLayerCount>& default_thresholds() noexcept { return kDefaults; }

LayerThreshold default_native_threshold() noexcept { return kNativeDefault; }

const UnitWords& unit_words(WorkUnit u) noexcept { return kUnits[static_cast<int>(u)]; }

bool parse_run_params(std::string_view text, RunParams& out, std::string& error) {
  std::vector<dalkit::KvPair> pairs;
  if (!dalkit::parse_kv_options(text, pairs, error)) return false;
  RunParams p;
  for (const auto& kv : pairs)
    if (!apply(p, kv.key, kv.value, error)) return false;
  if (p.sample_every == 0 && p.queries_planned > 0) p.sample_every = std::max<int64_t>(1, p.queries_planned / 100);
  out = std::move(p);
  return true;
}

}  // namespace dalmon
