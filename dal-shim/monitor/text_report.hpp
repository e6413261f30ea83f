// text_report.hpp -- the human-readable report every driver prints.
//
// Keeps the seed study's blocks (START, ITERATION N, AVERAGE, END, "Data
// transferred", "Time to end") so old and new runs read side by side, and
// adds throughput, latency, CPU, startup and the per-layer verdict table.
#pragma once

#include <string>
#include <vector>

#include "metrics.hpp"
#include "run_params.hpp"
#include "run_result.hpp"

namespace dalmon {

class TextReport {
 public:
  static std::string render(const RunParams &params, const std::vector<Sample> &samples,
                            const Startup &startup, const RunResult &result);

  // Helpers shared with tests: 12100000000 bytes -> "11,539" (MiB, rounded
  // down like the seed study), 1234567 -> "1,234,567", 76.586 s -> "1:16.586".
  static std::string mib_grouped(double bytes);
  static std::string grouped(int64_t v);
  static std::string duration(double seconds);
};

}  // namespace dalmon
