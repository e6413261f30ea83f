// text_report.hpp -- the human-readable report every driver prints.
//
// Short by default (about 40 lines): the run, the seed study's START /
// AVERAGE / END figures as one table, "Data transferred", "Time to end",
// throughput, latency, CPU, startup, and the per-layer verdict table.  The
// per-sample series (the seed's ITERATION blocks) is in the JSON report, and
// in the text only with the run parameter verbose=1.
#pragma once

#include <string>
#include <vector>

#include "metrics.hpp"
#include "run_params.hpp"
#include "run_result.hpp"

namespace dalmon {

class TextReport {
 public:
  static std::string render(const RunParams& params, const std::vector<Sample>& samples, const RunResult& result);
};

}  // namespace dalmon
