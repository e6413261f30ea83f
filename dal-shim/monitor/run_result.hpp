// run_result.hpp -- plain data a run produces, shared by Monitor and reports.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "latency_histogram.hpp"
#include "leak_detector.hpp"
#include "metric_series.hpp"
#include "metrics.hpp"

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

// Everything finish() concludes.  Immutable once produced.
struct RunResult {
  int exit_code = 2;                 // 0 no leak, 1 leak, 2 error
  std::string overall;               // "no leak", "leak", "error"
  std::vector<std::string> errors;   // why exit code 2
  std::vector<std::string> leaking_layers;
  std::array<SeriesSummary, kMetricCount> metrics{};
  std::vector<LayerVerdict> layers;  // one per Layer, in Layer order
  double warmup_boundary_queries = 0;
  LatencySummary latency;
  RunCounts counts;
  double wall_s = 0, cpu_user_s = 0, cpu_sys_s = 0;
  double cpu_percent = 0;            // (user+sys) / wall * 100; >100 with several threads
  double queries_per_second = 0;
};

struct Startup {
  int64_t rss_after_load = -1;       // bytes
  int64_t ns_to_first_query = -1;
};

}  // namespace dalmon
