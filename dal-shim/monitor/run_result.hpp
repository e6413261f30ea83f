// run_result.hpp -- plain data a run produces, shared by Monitor and reports.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "latency_histogram.hpp"
#include "leak_detector.hpp"
#include "metric_series.hpp"
#include "metrics.hpp"
#include "native_layers.hpp"

namespace dalmon {

// The runtime's own figures; -1 where the runtime has no such number.
struct JsFigures {
  int64_t heap_used = -1;
  int64_t heap_total = -1;
  int64_t external = -1;
  int64_t array_buffers = -1;
};

struct RunCounts {
  int64_t queries = 0;    // answered and checked
  int64_t bytes_in = 0;   // request bytes sent to the DAL
  int64_t bytes_out = 0;  // response bytes received
  int64_t errors = 0;     // failed calls and wrong answers
};

struct Startup {
  int64_t rss_after_load = -1;  // bytes
  int64_t ns_to_first_query = -1;
};

// The borderline run that a confirmation run repeats with twice the
// queries (--confirm; dalmon_mark_confirmation): its verdict as it was.
struct ConfirmedRun {
  int64_t queries_planned = 0;
  int exit_code = 2;
  std::string overall;
  std::vector<std::string> leaking_layers;
  std::vector<std::string> borderline_layers;
};

// Everything finish() concludes.  Immutable once produced.
struct RunResult {
  int exit_code = 2;                // 0 no leak, 1 leak, 2 error
  std::string overall;              // "no leak", "leak", "error"
  std::vector<std::string> errors;  // why exit code 2, one sentence each
  std::vector<std::string> leaking_layers;
  // Layers whose verdict is close to a threshold (borderline.hpp).  The run
  // is borderline when it has any and no error: --confirm repeats it.
  std::vector<std::string> borderline_layers;
  bool borderline = false;
  // Set in a confirmation run: the run it repeats.  This run's verdict stands.
  std::optional<ConfirmedRun> confirms;

  // The one summary of each metric (Metric order): the verdicts, the text
  // and the JSON all read these.
  std::array<SeriesSummary, kMetricCount> metrics{};
  std::vector<LayerVerdict> layers;  // one per Layer, in Layer order
  // The allocation tracer's layers (native:<dso>), after `layers` in every
  // report; empty without the tracer.  leaking_layers names them too.
  TracerFacts tracer;
  std::vector<NativeLayer> native;

  // Warm-up and the span that growth and slope are measured over: the
  // samples from the first one at or after the boundary to the last one.
  double warmup_boundary_queries = 0;
  int post_warmup_samples = 0;     // 0: the run ended inside warm-up
  int64_t span_first_queries = 0;  // queries at the first post-warm-up sample
  int64_t span_last_queries = 0;   // queries at the last sample

  // Completeness.  A run that answered fewer queries than planned
  // (interrupted, or stopped by the driver) still gets a verdict for each
  // layer with enough post-warm-up samples, marked partial.
  int64_t answered = 0;         // counts.queries, or the last sample's queries if not counted
  bool interrupted = false;     // dalmon_mark_interrupted / Monitor::mark_interrupted
  std::string interrupt_cause;  // "" if none given
  bool partial = false;         // at least one layer was judged on an incomplete run

  LatencySummary latency;
  RunCounts counts;
  Startup startup;
  int64_t started_unix_ms = 0;
  double wall_s = 0, cpu_user_s = 0, cpu_sys_s = 0;
  double cpu_percent = 0;  // (user+sys) / wall * 100; >100 with several threads
  double queries_per_second = 0;

  const SeriesSummary& summary_of(Layer l) const noexcept { return metrics[static_cast<int>(layer_info(l).metric)]; }
};

}  // namespace dalmon
