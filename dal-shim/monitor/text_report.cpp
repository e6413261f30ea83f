#include "text_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "concat.hpp"
#include "format.hpp"

namespace dalmon {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;

// A metric value for the text: MB (MiB) with one decimal for bytes, a plain
// grouped number for counts.
std::string human(Unit unit, double v) {
  if (unit == Unit::Bytes) {
    // KB below 1 MB so that small layers (buffers, Go heap growth) do not all read "0.0 MB".
    if (std::fabs(v) < kMiB) return format_double("%.1f KB", v / 1024.0);
    return format_double("%.1f MB", v / kMiB);
  }
  return grouped(static_cast<int64_t>(std::llround(v)));
}

// concat, not "+" + std::string: concat.hpp says why.
std::string signed_human(Unit unit, double v) { return dalkit::concat(v >= 0 ? "+" : "-", human(unit, std::fabs(v))); }

// A slope or slope limit, in the same unit for both so that a reader can
// compare them: bytes per query for byte layers ("16.00 B/q"; two decimals
// resolve every default limit), objects per million queries for the count
// layers ("100.00/Mq" is one object leaked every 10,000 queries).  Limits
// are printed as given ("0.5 B/q").
// With unit=iteration the same figures read B/it and /Mit.
std::string slope_text(Unit unit, double per_query, const UnitWords& u) {
  const bool bytes = unit == Unit::Bytes;
  double v = bytes ? per_query : per_query * 1e6;
  if (std::fabs(v) < 0.005) v = 0;  // print "0.00", not "-0.00"
  return dalkit::concat(format_double(bytes ? "%.2f B/" : "%.2f/M", v), u.abbrev);
}
std::string limit_text(Unit unit, double per_query, const UnitWords& u) {
  if (unit == Unit::Bytes) return dalkit::concat(format_double("> %g B/", per_query), u.abbrev);
  return dalkit::concat(format_double("> %g/M", per_query * 1e6), u.abbrev);
}

std::string ns_human(double ns) {
  if (ns < 1e3) return format_double("%.0f ns", ns);
  if (ns < 1e6) return format_double("%.2f us", ns / 1e3);
  if (ns < 1e9) return format_double("%.2f ms", ns / 1e6);
  return format_double("%.3f s", ns / 1e9);
}

std::string row(const char* f, const std::string& a, const std::string& b, const std::string& c, const std::string& d) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a.c_str(), b.c_str(), c.c_str(), d.c_str());
  return buf;
}

// The seed study's per-sample block (verbose only): one line per metric the
// sample has, so "rss" always starts a line and blocks stay greppable.
void sample_block(std::string& out, const std::string& title, const Sample& s) {
  out += title + "\n";
  for (int m = 0; m < kMetricCount; ++m) {
    if (s.values[m] < 0) continue;
    const Metric metric = static_cast<Metric>(m);
    char line[128];
    std::snprintf(line, sizeof line, "  %-18s %s\n", std::string(metric_info(metric).name).c_str(),
                  human(metric_info(metric).unit, static_cast<double>(s.values[m])).c_str());
    out += line;
  }
}

// START, AVERAGE and END side by side: the seed study's three blocks in
// one table, one row per metric that was ever available.
void figures_table(std::string& out, const std::vector<Sample>& samples, const RunResult& r, const UnitWords& u) {
  out += dalkit::concat("Memory: START at ", u.name, " ", grouped(samples.front().queries), ", AVERAGE of ",
                        grouped(static_cast<int64_t>(samples.size())), " samples, END at ", u.name, " ",
                        grouped(samples.back().queries), "\n");
  // The name column is as wide as the longest name (native:libsqlite3.so.0.8.6).
  size_t width = 18;
  for (const NativeLayer& L : r.native) width = std::max(width, L.name.size());
  auto name = [&](std::string_view n) {
    std::string padded(n);
    padded.resize(width, ' ');
    return padded;
  };
  const char* f = "  %s %12s %12s %12s\n";
  out += row(f, name("metric"), "START", "AVERAGE", "END");
  for (int m = 0; m < kMetricCount; ++m) {
    const SeriesSummary& s = r.metrics[m];
    if (!s.available) continue;
    const MetricInfo& mi = metric_info(static_cast<Metric>(m));
    out += row(f, name(mi.name), human(mi.unit, s.start), human(mi.unit, s.average), human(mi.unit, s.end));
  }
  // The tracer's layers: their name is their metric.
  for (const NativeLayer& L : r.native) {
    const SeriesSummary& s = L.summary;
    if (s.available)
      out +=
          row(f, name(L.name), human(Unit::Bytes, s.start), human(Unit::Bytes, s.average), human(Unit::Bytes, s.end));
    else
      out += row(f, name(L.name), "n/a", "n/a", "n/a");
  }
}

// Under the verdict table of a run with the allocation tracer: how its
// figures were taken and what the runtime and others layers hold.
void attribution_lines(std::string& out, const RunResult& r) {
  const TracerFacts& t = r.tracer;
  std::string runtime = "?";
  for (const DsoInfo& d : t.dsos)
    if (d.main) runtime = d.name;
  const std::string how = t.sample_bytes == 0 ? std::string("exact")
                          : t.sample_bytes > 0
                              ? dalkit::concat("sampled, 1 per ", grouped(t.sample_bytes), " bytes: estimates")
                              : std::string("?");
  out += dalkit::concat(
      "  (native:<dso>: live malloc and resident anonymous mmap bytes per shared object, allocation tracer, ", how,
      "; native:runtime is ", runtime, ", malloc only");
  for (const NativeLayer& L : r.native)
    if (L.name == kOthersLayer) out += dalkit::concat("; native:others sums ", std::to_string(L.dsos.size()), " DSOs");
  out += ")\n";
  if (!t.runtime_heap_visible)
    out +=
        dalkit::concat("  (native:runtime n/a: ", runtime,
                       " calls no malloc the tracer can see, it has an allocator of its own; docs/attribution.md)\n");
  if (t.dropped > 0)
    out += dalkit::concat("  (the tracer's tables were full: ", grouped(t.dropped),
                          " blocks not recorded, native figures are low)\n");
}

// One row of the verdict table, for a fixed layer or a native:<dso> one.
std::string verdict_row(int width, const std::string& name, Unit unit, const SeriesSummary& s, const LayerVerdict& v,
                        const UnitWords& u) {
  std::string verdict = verdict_name(v.status);
  if (v.partial) verdict += " (partial)";
  char line[320];
  const char* f = "  %-*s %11s %11s %11s %11s %13s %12s  %s\n";
  if (v.status == VerdictStatus::NotAvailable) {
    std::snprintf(line, sizeof line, f, width, name.c_str(), "-", "-", "-", "-", "-", "-", verdict.c_str());
  } else {
    const bool post = s.post_warmup_samples > 0;
    std::snprintf(line, sizeof line, f, width, name.c_str(), human(unit, s.start).c_str(), human(unit, s.end).c_str(),
                  post ? signed_human(unit, s.growth_after_warmup).c_str() : "-",
                  human(unit, v.threshold.min_growth).c_str(),
                  post ? slope_text(unit, s.slope_per_query, u).c_str() : "-",
                  limit_text(unit, v.threshold.slope_limit, u).c_str(), verdict.c_str());
  }
  return line;
}

void verdict_table(std::string& out, const RunResult& r, const UnitWords& u) {
  const std::string boundary = grouped(std::llround(r.warmup_boundary_queries));
  if (r.post_warmup_samples > 0) {
    out += dalkit::concat("Leak verdict: warm-up ends at ", u.name, " ", boundary, "; growth and slope after warm-up, ",
                          u.plural, " ", grouped(r.span_first_queries), "..", grouped(r.span_last_queries), " (",
                          std::to_string(r.post_warmup_samples), " samples)\n");
  } else {
    out += dalkit::concat("Leak verdict: warm-up ends at ", u.name, " ", boundary, "; no sample after warm-up\n");
  }
  // The layer column is as wide as the longest name (native:libdalshim.so).
  // As wide as the longest layer name (pg_server_sessions, native:<dso>).
  int width = 13;
  for (const LayerVerdict& v : r.layers) width = std::max(width, static_cast<int>(layer_info(v.layer).name.size()));
  for (const NativeLayer& L : r.native) width = std::max(width, static_cast<int>(L.name.size()));
  char line[256];
  std::snprintf(line, sizeof line, "  %-*s %11s %11s %11s %11s %13s %12s  %s\n", width, "layer", "start", "end",
                "growth", "min growth", "slope", "slope limit", "verdict");
  out += line;
  for (const LayerVerdict& v : r.layers) {
    const LayerInfo& li = layer_info(v.layer);
    out += verdict_row(width, std::string(li.name), metric_info(li.metric).unit, r.summary_of(v.layer), v, u);
  }
  for (const NativeLayer& L : r.native) out += verdict_row(width, L.name, Unit::Bytes, L.summary, L.verdict, u);
  out += dalkit::concat("  (slope: B/", u.abbrev, " = bytes per ", u.name, ", /M", u.abbrev, " = objects per million ",
                        u.plural, ")\n");
  if (r.tracer.present) attribution_lines(out, r);
}

std::string layer_list(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : " ") + n;
  return s;
}

// Borderline layers with their reasons, and what --confirm did about them.
void borderline_lines(std::string& out, const RunResult& r, const RunParams& p, const UnitWords& u) {
  if (r.borderline) {
    for (const LayerVerdict& v : r.layers)
      if (v.borderline)
        out += dalkit::concat("BORDERLINE: ", layer_info(v.layer).name, " ", verdict_name(v.status), ": ",
                              v.borderline_reason, "\n");
    for (const NativeLayer& n : r.native)
      if (n.verdict.borderline)
        out += dalkit::concat("BORDERLINE: ", n.name, " ", verdict_name(n.verdict.status), ": ",
                              n.verdict.borderline_reason, "\n");
    if (!r.confirms)
      out += dalkit::concat("BORDERLINE: a longer run could turn this verdict over; --confirm repeats it with ",
                            grouped(2 * p.queries_planned), " ", u.plural, "\n");
  }
  if (r.confirms) {
    const ConfirmedRun& c = *r.confirms;
    std::string was = c.exit_code == 1 ? "LEAK in " + layer_list(c.leaking_layers) : std::string("NO LEAK");
    out += dalkit::concat("CONFIRMATION: the run of ", grouped(c.queries_planned), " ", u.plural, " was borderline (",
                          was, "; borderline in ", layer_list(c.borderline_layers), "); this run repeated it with ",
                          grouped(p.queries_planned), " ", u.plural, " (--confirm) and its verdict stands\n");
  }
}

// The leaking layers for the verdict line: a native:<dso> layer with its
// slope, so that the line says which library and how fast
// ("native:libdal.so (+16.2 B/query)").
std::string leak_list(const RunResult& r, const UnitWords& u) {
  std::string s;
  for (const std::string& n : r.leaking_layers) {
    s += (s.empty() ? "" : " ") + n;
    for (const NativeLayer& L : r.native)
      if (L.name == n) s += dalkit::concat(format_double(" (%+.1f B/", L.summary.slope_per_query), u.name, ")");
  }
  return s;
}

std::string verdict_line(const RunResult& r, const UnitWords& u) {
  std::string v = "VERDICT: ";
  if (r.exit_code == 1) {
    v += "LEAK in " + leak_list(r, u);
  } else if (r.exit_code == 0) {
    v += "NO LEAK";
  } else {
    v += "ERROR";
    if (r.interrupted) v += dalkit::concat(", interrupted after ", grouped(r.answered), " ", u.plural);
    int judged = 0;
    for (const auto& l : r.layers) judged += l.partial ? 1 : 0;
    for (const auto& l : r.native) judged += l.verdict.partial ? 1 : 0;
    if (r.partial && !r.leaking_layers.empty())
      v += "; partial verdict: LEAK in " + leak_list(r, u);
    else if (r.partial)
      v += "; partial verdict: no leak in the " + std::to_string(judged) + " layers judged";
    else if (!r.leaking_layers.empty())
      v += ", the run proves nothing; growth seen in " + leak_list(r, u);
    else if (r.interrupted)
      v += ", before any layer had enough samples for a verdict";
    else
      v += ", the run proves nothing";
  }
  return v + " (exit code " + std::to_string(r.exit_code) + ")\n";
}
}  // namespace

std::string TextReport::render(const RunParams& p, const std::vector<Sample>& samples, const RunResult& r) {
  const UnitWords& u = unit_words(p.unit);
  std::string out;
  out += "dalkit stress run: driver " + p.driver;
  if (!p.runtime.empty()) out += ", runtime " + p.runtime;
  if (!p.mode.empty()) out += ", mode " + p.mode;
  out += dalkit::concat(", threads ", std::to_string(p.threads), ", planned ", grouped(p.queries_planned), " ",
                        u.plural, ", sample every ", grouped(p.sample_every), ", warm-up ",
                        format_double("%.0f%%", p.warmup_share * 100), "\n\n");

  if (samples.empty()) {
    out += "(no samples)\n";
  } else {
    if (p.verbose) {
      sample_block(out, "START", samples.front());
      for (size_t i = 1; i + 1 < samples.size(); ++i)
        sample_block(out, "ITERATION " + grouped(samples[i].queries), samples[i]);
      if (samples.size() > 1) sample_block(out, "END " + grouped(samples.back().queries), samples.back());
      out += "\n";
    }
    figures_table(out, samples, r, u);
    if (!p.verbose) out += "(every sample: JSON report, or the text report with verbose=1)\n";
  }
  out += "\n";

  const RunCounts& c = r.counts;
  // Requests and responses are the DAL's; an iteration of a target has none.
  if (p.unit == WorkUnit::Query) {
    out += "Data transferred: " + mib_grouped(static_cast<double>(c.bytes_in) + static_cast<double>(c.bytes_out)) +
           " MB (requests " + mib_grouped(static_cast<double>(c.bytes_in)) + " MB, responses " +
           mib_grouped(static_cast<double>(c.bytes_out)) + " MB)\n";
  }
  out += "Time to end: " + duration_text(r.wall_s) + format_double(" (%.3f s)\n", r.wall_s);
  out += dalkit::concat(u.title, ": ", grouped(c.queries), ", errors: ", grouped(c.errors), "\n");
  out +=
      dalkit::concat(u.title, " per second: ", grouped(static_cast<int64_t>(std::llround(r.queries_per_second))), "\n");
  const LatencySummary& l = r.latency;
  if (l.count > 0) {
    out += "Latency (" + grouped(l.count) + " samples): p50 " + ns_human(double(l.p50)) + ", p97.5 " +
           ns_human(double(l.p97_5)) + ", p99 " + ns_human(double(l.p99)) + ", max " + ns_human(double(l.max)) +
           ", mean " + ns_human(l.mean) + ", stdev " + ns_human(l.stdev) + "\n";
  } else {
    out += "Latency: not recorded\n";
  }
  out += "CPU: " + format_double("%.0f%%", r.cpu_percent) + format_double(" (user %.3f s", r.cpu_user_s) +
         format_double(", system %.3f s)\n", r.cpu_sys_s);
  const Startup& st = r.startup;
  out += "Startup: RSS after load " +
         (st.rss_after_load >= 0 ? format_double("%.1f MB", double(st.rss_after_load) / kMiB) : std::string("n/a")) +
         dalkit::concat(", time to first ", u.name, " ") +
         (st.ns_to_first_query >= 0 ? ns_human(double(st.ns_to_first_query)) : std::string("n/a")) + "\n\n";

  verdict_table(out, r, u);
  out += "\n";
  for (const std::string& e : r.errors) out += "ERROR: " + e + "\n";
  borderline_lines(out, r, p, u);
  out += verdict_line(r, u);
  return out;
}

}  // namespace dalmon
