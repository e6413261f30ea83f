// run_params.hpp -- what a run is started with, and its parser.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "metrics.hpp"

namespace dalmon {

// The leak rule's knobs for one layer (docs/leak-verdict.md).
struct LayerThreshold {
  double slope_limit = 0;  // units per query; leak needs slope >  this
  double min_growth = 0;   // units; leak needs growth after warm-up >= this
};

// Defaults chosen per layer for its noise; see docs/leak-verdict.md.
const std::array<LayerThreshold, kLayerCount>& default_thresholds() noexcept;
LayerThreshold default_native_threshold() noexcept;

// What the driver counts on the x axis: a DAL query (the kit's workloads,
// the default) or one iteration of a --target module (docs/targets.md).
// Only the words of the reports depend on it; the rule and the figures are
// the same.  The JSON keys keep their names (`queries_planned`, `queries`)
// and `run.unit` says what they count.
enum class WorkUnit { Query, Iteration };

struct UnitWords {
  std::string_view name;    // "query": run.unit in the JSON, the value of unit=
  std::string_view plural;  // "queries"
  std::string_view title;   // "Queries" (a line's first word)
  std::string_view abbrev;  // "q": slopes in B/q, /Mq
};
const UnitWords& unit_words(WorkUnit u) noexcept;

struct RunParams {
  std::string driver = "unknown";  // e.g. "node-napi", "bun-ffi", "native"
  std::string runtime = "";        // e.g. "node v22.11.0"
  std::string mode = "";           // free text: "ownership=a", "threads", ...
  int64_t queries_planned = 0;     // 0 = not known (no completeness check)
  int64_t sample_every = 0;        // queries between samples; 0 = queries_planned / 100
  double warmup_share = 0.2;       // first share of planned queries ignored by the slope
  int32_t threads = 1;
  WorkUnit unit = WorkUnit::Query;  // unit=query|iteration
  bool force_gc = true;             // ask the native source for a Go GC before each sample
  bool verbose = false;             // text report also lists every sample (START, ITERATION n, END blocks)
  int32_t min_samples = 6;          // post-warm-up samples needed for any verdict
  std::array<LayerThreshold, kLayerCount> thresholds = default_thresholds();
  // One pair for every native:<dso> layer of the allocation tracer
  // (native_layers.hpp); keys slope.native and growth.native.
  LayerThreshold native_threshold = default_native_threshold();
};

// Parse "key=value" pairs separated by ';' or ',' with the kit's one k=v
// parser (dal-shim/common/kv_options.hpp: the same grammar as dal_open's
// options, so drivers build both strings the same way; no whitespace around
// keys or values, no key twice).  Unknown keys and bad values are errors: a
// typo in a threshold must not silently fall back to a default and change
// the verdict.  Empty text = defaults.
//
// Keys: driver runtime mode queries sample_every warmup threads unit force_gc
//       verbose min_samples slope.<layer> (units/query) growth.<layer> (units),
//       where <layer> is also `native` (every native:<dso> layer)
bool parse_run_params(std::string_view text, RunParams& out, std::string& error);

}  // namespace dalmon
