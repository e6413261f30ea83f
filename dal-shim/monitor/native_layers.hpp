// native_layers.hpp -- the native:<dso> layers: the allocation tracer's
// per-DSO live bytes, grouped, ranked and judged (docs/attribution.md).
//
// Which DSOs exist is known only at run time, so these layers are not in
// the fixed Layer table (metrics.hpp).  They are built at finish from the
// DSO figure every sample carries (Sample::dso_bytes), and judged by the
// same rule and the same code as every other layer (LeakDetector).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dso_stats_source.hpp"
#include "leak_detector.hpp"
#include "metric_series.hpp"
#include "metrics.hpp"
#include "run_params.hpp"

namespace dalmon {

// DSO layers shown by name; the others are summed into native:others.
inline constexpr int kShownDsoLayers = 4;

inline constexpr std::string_view kNativePrefix = "native:";
inline constexpr std::string_view kRuntimeLayer = "native:runtime";
inline constexpr std::string_view kOthersLayer = "native:others";

// What the monitor learnt about the tracer over the run.
struct TracerFacts {
  bool present = false;               // the tracer was in the process (else: no native layer)
  int64_t sample_bytes = -1;          // its sampling interval (0 exact), from the last sample
  int64_t dropped = 0;                // blocks and regions it could not record, at the last sample
  bool runtime_heap_visible = false;  // the executable's allocations go through the tracer
  std::vector<DsoInfo> dsos;          // by tracer index, as far as the samples saw
};

struct NativeLayer {
  std::string name;               // "native:libdal.so", "native:runtime", "native:others"
  std::vector<std::string> dsos;  // the DSOs summed into it (path, or name when it has none)
  std::vector<int64_t> values;    // one per sample, -1 = n/a
  SeriesSummary summary;
  LayerVerdict verdict;  // verdict.layer means nothing here: the name is `name`
};

// The shown layers, in report order: the kShownDsoLayers DSOs that grew
// most after warm-up (most live bytes at the end when the run ended inside
// warm-up), then native:runtime, then native:others (every other DSO,
// summed).  A DSO the tracer had not seen yet at a sample had allocated
// nothing: 0 there.  DSOs with the same file name are one layer.
// native:runtime is n/a when !facts.runtime_heap_visible.  Empty when no
// tracer was present.
std::vector<NativeLayer> native_layers(const RunParams& params, const std::vector<Sample>& samples,
                                       const TracerFacts& facts, double warmup_boundary);

}  // namespace dalmon
