#include "text_report.hpp"

#include <cmath>
#include <cstdio>

namespace dalmon {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;

std::string fmt(const char *f, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, a);
  return buf;
}

// A metric value for the text: MB (MiB) with one decimal for bytes, a plain
// grouped number for counts.
std::string human(Metric m, double v) {
  if (metric_info(m).unit == Unit::Bytes) {
    // KB below 1 MB so that small layers (buffers, Go heap growth) do not all read "0.0 MB".
    if (std::fabs(v) < kMiB) return fmt("%.1f KB", v / 1024.0);
    return fmt("%.1f MB", v / kMiB);
  }
  return TextReport::grouped(static_cast<int64_t>(std::llround(v)));
}

std::string signed_human(Metric m, double v) {
  return (v >= 0 ? "+" : "-") + human(m, std::fabs(v));
}

void metric_lines(std::string &out, const std::array<double, kMetricCount> &vals,
                  const std::array<bool, kMetricCount> &have) {
  // One line per metric keeps blocks greppable ("rss" always starts a line).
  for (int m = 0; m < kMetricCount; ++m) {
    if (!have[m]) continue;
    char buf[128];
    std::snprintf(buf, sizeof buf, "  %-18s %s\n", std::string(metric_info(static_cast<Metric>(m)).name).c_str(),
                  human(static_cast<Metric>(m), vals[m]).c_str());
    out += buf;
  }
}

void sample_block(std::string &out, const std::string &title, const Sample &s) {
  out += title + "\n";
  std::array<double, kMetricCount> vals{};
  std::array<bool, kMetricCount> have{};
  for (int m = 0; m < kMetricCount; ++m) {
    have[m] = s.values[m] >= 0;
    vals[m] = static_cast<double>(s.values[m]);
  }
  metric_lines(out, vals, have);
}

std::string ns_human(double ns) {
  if (ns < 1e3) return fmt("%.0f ns", ns);
  if (ns < 1e6) return fmt("%.2f us", ns / 1e3);
  if (ns < 1e9) return fmt("%.2f ms", ns / 1e6);
  return fmt("%.3f s", ns / 1e9);
}
}  // namespace

std::string TextReport::grouped(int64_t v) {
  bool neg = v < 0;
  uint64_t u = neg ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  std::string d = std::to_string(u), out;
  for (size_t i = 0; i < d.size(); ++i) {
    if (i && (d.size() - i) % 3 == 0) out += ',';
    out += d[i];
  }
  return neg ? "-" + out : out;
}

std::string TextReport::mib_grouped(double bytes) {
  return grouped(static_cast<int64_t>(std::floor(bytes / kMiB)));
}

std::string TextReport::duration(double seconds) {
  if (seconds < 0) seconds = 0;
  int64_t ms = static_cast<int64_t>(std::llround(seconds * 1000.0));
  int64_t h = ms / 3600000, m = (ms / 60000) % 60, s = (ms / 1000) % 60, frac = ms % 1000;
  char buf[64];
  if (h) std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld.%03lld", (long long)h, (long long)m, (long long)s, (long long)frac);
  else std::snprintf(buf, sizeof buf, "%lld:%02lld.%03lld", (long long)m, (long long)s, (long long)frac);
  return buf;
}

std::string TextReport::render(const RunParams &p, const std::vector<Sample> &samples,
                               const Startup &startup, const RunResult &r) {
  std::string out;
  out += "dalkit stress run: driver " + p.driver;
  if (!p.runtime.empty()) out += ", runtime " + p.runtime;
  if (!p.mode.empty()) out += ", mode " + p.mode;
  out += ", threads " + std::to_string(p.threads) + ", planned " + grouped(p.queries_planned) +
         " queries, sample every " + grouped(p.sample_every) + ", warm-up " +
         fmt("%.0f%%", p.warmup_share * 100) + "\n\n";

  if (!samples.empty()) {
    sample_block(out, "START", samples.front());
    for (size_t i = 1; i + 1 < samples.size(); ++i)
      sample_block(out, "ITERATION " + grouped(samples[i].queries), samples[i]);
    std::array<double, kMetricCount> avg{};
    std::array<bool, kMetricCount> have{};
    for (int m = 0; m < kMetricCount; ++m) {
      have[m] = r.metrics[m].available;
      avg[m] = r.metrics[m].average;
    }
    out += "AVERAGE\n";
    metric_lines(out, avg, have);
    if (samples.size() > 1) sample_block(out, "END " + grouped(samples.back().queries), samples.back());
  } else {
    out += "(no samples)\n";
  }
  out += "\n";

  const RunCounts &c = r.counts;
  out += "Data transferred: " + mib_grouped(static_cast<double>(c.bytes_in) + static_cast<double>(c.bytes_out)) +
         " MB (requests " + mib_grouped(static_cast<double>(c.bytes_in)) + " MB, responses " +
         mib_grouped(static_cast<double>(c.bytes_out)) + " MB)\n";
  out += "Time to end: " + duration(r.wall_s) + fmt(" (%.3f s)\n", r.wall_s);
  out += "Queries: " + grouped(c.queries) + ", errors: " + grouped(c.errors) + "\n";
  out += "Queries per second: " + grouped(static_cast<int64_t>(std::llround(r.queries_per_second))) + "\n";
  const LatencySummary &l = r.latency;
  if (l.count > 0) {
    out += "Latency (" + grouped(l.count) + " samples): p50 " + ns_human(double(l.p50)) + ", p97.5 " +
           ns_human(double(l.p97_5)) + ", p99 " + ns_human(double(l.p99)) + ", max " + ns_human(double(l.max)) +
           ", mean " + ns_human(l.mean) + ", stdev " + ns_human(l.stdev) + "\n";
  } else {
    out += "Latency: not recorded\n";
  }
  out += "CPU: " + fmt("%.0f%%", r.cpu_percent) + fmt(" (user %.3f s", r.cpu_user_s) +
         fmt(", system %.3f s)\n", r.cpu_sys_s);
  out += "Startup: RSS after load " +
         (startup.rss_after_load >= 0 ? fmt("%.1f MB", double(startup.rss_after_load) / kMiB) : std::string("n/a")) +
         ", time to first query " +
         (startup.ns_to_first_query >= 0 ? ns_human(double(startup.ns_to_first_query)) : std::string("n/a")) + "\n\n";

  out += "Leak verdict (warm-up ends at query " +
         grouped(static_cast<int64_t>(std::llround(r.warmup_boundary_queries))) + ")\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-13s %12s %12s %14s %16s %22s  %s\n", "layer", "start", "end",
                "growth", "slope/Mquery", "threshold", "verdict");
  out += line;
  for (const LayerVerdict &v : r.layers) {
    const LayerInfo &li = layer_info(v.layer);
    Metric m = li.metric;
    std::string name(li.name);
    if (v.status == VerdictStatus::NotAvailable) {
      std::snprintf(line, sizeof line, "  %-13s %12s %12s %14s %16s %22s  %s\n", name.c_str(), "-", "-", "-",
                    "-", "-", "n/a");
    } else {
      bool bytes = metric_info(m).unit == Unit::Bytes;
      std::string slope = bytes ? grouped(std::llround(v.summary.slope_per_query * 1e6)) + " B"
                                : fmt("%.2f", v.summary.slope_per_query * 1e6);
      // Threshold as the rule reads: slope above X per query and growth of at least Y.
      std::string thr = (bytes ? fmt(">%g B/q", v.threshold.slope_limit) : fmt(">%g/q", v.threshold.slope_limit)) +
                        ", >=" + human(m, v.threshold.min_growth);
      std::snprintf(line, sizeof line, "  %-13s %12s %12s %14s %16s %22s  %s\n", name.c_str(),
                    human(m, v.summary.start).c_str(), human(m, v.summary.end).c_str(),
                    signed_human(m, v.summary.growth_after_warmup).c_str(), slope.c_str(), thr.c_str(),
                    verdict_name(v.status));
    }
    out += line;
  }
  out += "\n";
  for (const std::string &e : r.errors) out += "ERROR: " + e + "\n";
  out += "VERDICT: ";
  if (r.exit_code == 2) out += "ERROR (the run proves nothing)";
  else if (r.exit_code == 1) {
    out += "LEAK in";
    for (const auto &n : r.leaking_layers) out += " " + n;
  } else out += "NO LEAK";
  if (r.exit_code == 2 && !r.leaking_layers.empty()) {
    out += "; growth seen in";
    for (const auto &n : r.leaking_layers) out += " " + n;
  }
  out += " (exit code " + std::to_string(r.exit_code) + ")\n";
  return out;
}

}  // namespace dalmon
