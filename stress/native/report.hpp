// report.hpp -- the monitor's finished reports as strings, and the verdict
// line when the driver itself fails after the monitor has judged the run.
#pragma once

#include <cstdint>
#include <string>

namespace dalstress {

// dalmon_report_text / dalmon_report_json of a finished run.  On failure the
// text is empty and `error` holds the monitor's message.
bool monitor_text_report(int64_t run, std::string& text, std::string& error);
bool monitor_json_report(int64_t run, std::string& json, std::string& error);

// The monitor's text ends with "VERDICT: <what it found> (exit code N)".
// When the driver fails after dalmon_finish (the JSON report cannot be
// written, the handle does not close), the process exits 2, and the verdict
// line must say so: this replaces the last "VERDICT:" line with
// "VERDICT: ERROR: <reason>; the measurement found <what> (exit code 2)",
// or appends that line when there is none.
std::string with_error_verdict(const std::string& text, const std::string& reason);

}  // namespace dalstress
