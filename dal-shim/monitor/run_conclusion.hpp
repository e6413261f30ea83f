// run_conclusion.hpp -- from a frozen run to its RunResult: summaries,
// per-layer verdicts, errors and the exit code.
//
// A pure function of what the Monitor collected, kept apart from the Monitor
// (which owns threads, clocks and probes) so that the rule for "error",
// "interrupted" and "partial" is written once and tested without a run.
#pragma once

#include <string>
#include <vector>

#include "metrics.hpp"
#include "run_params.hpp"
#include "run_result.hpp"

namespace dalmon {

// What the Monitor hands over when the run is frozen.
struct RunFacts {
  RunCounts counts;
  LatencySummary latency;
  Startup startup;
  std::vector<std::string> failures;  // dalmon_fail reasons, in order
  bool interrupted = false;
  std::string interrupt_cause;
  std::optional<ConfirmedRun> confirms;  // this run repeats a borderline one
  int64_t started_unix_ms = 0;
  double wall_s = 0, cpu_user_s = 0, cpu_sys_s = 0;
  TracerFacts tracer;  // the samples' dso_bytes are indexed by tracer.dsos
};

// Summarize every metric once, judge every layer on those summaries, and
// decide the exit code: 2 (error) wins over 1 (leak) over 0 (no leak).
RunResult conclude_run(const RunParams& params, const std::vector<Sample>& samples, RunFacts facts);

}  // namespace dalmon
