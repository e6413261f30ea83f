#include "format.hpp"

#include <cmath>
#include <cstdio>

namespace dalmon {

std::string grouped(int64_t v) {
  bool neg = v < 0;
  uint64_t u = neg ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  std::string d = std::to_string(u), out;
  for (size_t i = 0; i < d.size(); ++i) {
    if (i && (d.size() - i) % 3 == 0) out += ',';
    out += d[i];
  }
  return neg ? "-" + out : out;
}

std::string mib_grouped(double bytes) { return grouped(static_cast<int64_t>(std::floor(bytes / (1024.0 * 1024.0)))); }

std::string duration_text(double seconds) {
  if (seconds < 0) seconds = 0;
  int64_t ms = static_cast<int64_t>(std::llround(seconds * 1000.0));
  long long h = ms / 3600000, m = (ms / 60000) % 60, s = (ms / 1000) % 60, frac = ms % 1000;
  char buf[64];
  if (h)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld.%03lld", h, m, s, frac);
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld.%03lld", m, s, frac);
  return buf;
}

std::string format_double(const char* printf_format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, printf_format, v);
  return buf;
}

}  // namespace dalmon
