#include "run_params.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace dalmon {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;

// Index order follows Layer.  The reasoning per row is in docs/leak-verdict.md;
// in short: exact byte counters (malloc, Go heap after GC, SQLite) get a small
// slope limit and 1-2 MiB of growth, page-granular and allocator-shaped RSS
// gets 4 MiB, JS heaps (GC'd but with V8/JSC bookkeeping jitter) 2 MiB, and
// live-object counts, which are exact, flag any persistent growth of one.
// Every byte row still catches 16 B/query over 1M queries (12.8 MB after a
// 20 % warm-up) with at least 3x margin on the slope.
constexpr std::array<LayerThreshold, kLayerCount> kDefaults{{
    {1.0, 2 * kMiB},    // js_heap
    {1.0, 2 * kMiB},    // js_external
    {2.0, 4 * kMiB},    // rss
    {0.5, 2 * kMiB},    // malloc
    {0.5, 1 * kMiB},    // go_heap
    {0.5, 1 * kMiB},    // sqlite
    {0.0, 1},           // dal_buffers
    {0.0, 1},           // shim_buffers
    {0.0, 1},           // statements
}};

bool parse_int(std::string_view v, int64_t &out) {
  std::string s(v);
  if (s.empty()) return false;
  errno = 0;
  char *end = nullptr;
  long long x = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') {
    // Accept exponent notation ("1e8") for convenience: drivers pass counts
    // like 100000000 and humans type 1e8.
    double d = std::strtod(s.c_str(), &end);
    if (*end != '\0' || !std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9.2e18) return false;
    out = static_cast<int64_t>(d);
    return true;
  }
  out = x;
  return true;
}

bool parse_double(std::string_view v, double &out) {
  std::string s(v);
  if (s.empty()) return false;
  char *end = nullptr;
  errno = 0;
  double d = std::strtod(s.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(d)) return false;
  out = d;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool apply(RunParams &p, std::string_view key, std::string_view val, std::string &err) {
  auto bad = [&](const char *what) {
    err = "bad value for '" + std::string(key) + "': '" + std::string(val) + "' (" + what + ")";
    return false;
  };
  int64_t i = 0;
  double d = 0;
  if (key == "driver") { p.driver = std::string(val); return true; }
  if (key == "runtime") { p.runtime = std::string(val); return true; }
  if (key == "mode") { p.mode = std::string(val); return true; }
  if (key == "queries") {
    if (!parse_int(val, i) || i < 0) return bad("integer >= 0");
    p.queries_planned = i; return true;
  }
  if (key == "sample_every") {
    if (!parse_int(val, i) || i < 0) return bad("integer >= 0");
    p.sample_every = i; return true;
  }
  if (key == "warmup") {
    // Above 0.9 too few samples remain after warm-up for a slope.
    if (!parse_double(val, d) || d < 0 || d > 0.9) return bad("share 0..0.9");
    p.warmup_share = d; return true;
  }
  if (key == "threads") {
    if (!parse_int(val, i) || i < 1 || i > 4096) return bad("integer 1..4096");
    p.threads = static_cast<int32_t>(i); return true;
  }
  if (key == "force_gc") {
    if (val == "1" || val == "true") { p.force_gc = true; return true; }
    if (val == "0" || val == "false") { p.force_gc = false; return true; }
    return bad("0 or 1");
  }
  if (key == "min_samples") {
    if (!parse_int(val, i) || i < 4 || i > 1000000) return bad("integer 4..1000000");
    p.min_samples = static_cast<int32_t>(i); return true;
  }
  auto dot = key.find('.');
  if (dot != std::string_view::npos) {
    std::string_view kind = key.substr(0, dot);
    Layer layer;
    if ((kind == "slope" || kind == "growth") && layer_from_name(key.substr(dot + 1), layer)) {
      if (!parse_double(val, d) || d < 0) return bad("number >= 0");
      auto &t = p.thresholds[static_cast<int>(layer)];
      (kind == "slope" ? t.slope_limit : t.min_growth) = d;
      return true;
    }
  }
  err = "unknown key '" + std::string(key) +
        "' (valid: driver runtime mode queries sample_every warmup threads force_gc min_samples "
        "slope.<layer> growth.<layer>)";
  return false;
}
}  // namespace

const std::array<LayerThreshold, kLayerCount> &default_thresholds() noexcept { return kDefaults; }

bool parse_run_params(std::string_view text, RunParams &out, std::string &error) {
  RunParams p;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find_first_of(";,", pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = trim(text.substr(pos, end - pos));
    pos = end + 1;
    if (item.empty()) continue;
    auto eq = item.find('=');
    if (eq == std::string_view::npos) {
      error = "expected key=value, got '" + std::string(item) + "'";
      return false;
    }
    if (!apply(p, trim(item.substr(0, eq)), trim(item.substr(eq + 1)), error)) return false;
  }
  if (p.sample_every == 0 && p.queries_planned > 0) p.sample_every = std::max<int64_t>(1, p.queries_planned / 100);
  out = std::move(p);
  return true;
}

}  // namespace dalmon
