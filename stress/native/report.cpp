#include "report.hpp"

#include "dalmonitor.h"

namespace dalstress {

namespace {

template <class Fetch>
bool fetch(int64_t run, Fetch f, std::string& out, std::string& error) {
  // Length first, then the bytes (the monitor renders once and caches).
  int64_t n = f(run, nullptr, 0);
  if (n >= 0) {
    out.assign(static_cast<size_t>(n) + 1, '\0');
    n = f(run, out.data(), out.size());
  }
  if (n < 0) {
    out.clear();
    error = dalmon_last_error();
    return false;
  }
  out.resize(static_cast<size_t>(n));
  return true;
}

}  // namespace

bool monitor_text_report(int64_t run, std::string& text, std::string& error) {
  return fetch(run, dalmon_report_text, text, error);
}

bool monitor_json_report(int64_t run, std::string& json, std::string& error) {
  return fetch(run, dalmon_report_json, json, error);
}

std::string with_error_verdict(const std::string& text, const std::string& reason) {
  static const std::string kPrefix = "VERDICT: ";
  // The last line that starts with the prefix.
  size_t at = std::string::npos;
  for (size_t line = 0; line < text.size();) {
    if (text.compare(line, kPrefix.size(), kPrefix) == 0) at = line;
    const size_t nl = text.find('\n', line);
    if (nl == std::string::npos) break;
    line = nl + 1;
  }
  std::string found;
  size_t end = text.size();
  if (at != std::string::npos) {
    end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    found = text.substr(at + kPrefix.size(), end - at - kPrefix.size());
    if (auto paren = found.rfind(" (exit code "); paren != std::string::npos) found.resize(paren);
  }
  std::string line = kPrefix + "ERROR: " + reason;
  if (!found.empty()) line += "; the measurement found " + found;
  line += " (exit code 2)";
  if (at == std::string::npos) {
    std::string out = text;
    if (!out.empty() && out.back() != '\n') out += '\n';
    return out + line + '\n';
  }
  return text.substr(0, at) + line + text.substr(end);
}

}  // namespace dalstress
