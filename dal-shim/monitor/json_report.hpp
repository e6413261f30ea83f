// json_report.hpp -- the machine-readable report (schema: docs/report-schema.md).
#pragma once

#include "dalmonitor.h"

#include <cstdint>
#include <string>
#include <vector>

#include "metrics.hpp"
#include "run_params.hpp"
#include "run_result.hpp"

namespace dalmon {

class JsonReport {
 public:
  static constexpr int kSchemaVersion = DALMON_REPORT_SCHEMA_VERSION;  // one definition, in the C header

  static std::string render(const RunParams& params, const std::vector<Sample>& samples, const RunResult& result);
};

}  // namespace dalmon
