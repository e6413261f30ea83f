#include "json_report.hpp"

#include <unistd.h>

#include "json_writer.hpp"

namespace dalmon {

namespace {
const char* unit_name(Unit u) { return u == Unit::Bytes ? "bytes" : "count"; }

void summary_object(JsonWriter& w, const SeriesSummary& s) {
  w.begin_object();
  w.key("available").value(s.available);
  if (s.available) {
    w.key("start").value(s.start);
    w.key("average").value(s.average);
    w.key("peak").value(s.peak);
    w.key("end").value(s.end);
    w.key("post_warmup_samples").value(s.post_warmup_samples);
    // No sample after warm-up: there is no growth or slope to report, and a
    // made-up 0 would read as "flat".
    const bool post = s.post_warmup_samples > 0;
    auto post_value = [&](const char* k, double v) -> void {
      w.key(k);
      if (post)
        w.value(v);
      else
        w.null();
    };
    post_value("warmup_end_queries", s.warmup_queries);
    post_value("warmup_end_value", s.warmup_value);
    post_value("growth_after_warmup", s.growth_after_warmup);
    post_value("slope_per_mquery", s.slope_per_query * 1e6);
  }
  w.end_object();
}
// How the native:<dso> layers were measured, and every DSO the tracer saw
// with the layer it went into ("native:others" for the ones not shown).
void attribution_object(JsonWriter& w, const RunResult& r) {
  const TracerFacts& t = r.tracer;
  w.key("attribution").begin_object();
  w.key("tracer").value(t.present);
  if (t.present) {
    w.key("sample_bytes").maybe(t.sample_bytes);
    w.key("dropped").value(t.dropped);
    w.key("runtime_heap_visible").value(t.runtime_heap_visible);
    w.key("dsos").begin_array();
    for (size_t i = 0; i < t.dsos.size(); ++i) {
      const DsoInfo& d = t.dsos[i];
      const std::string path = d.path.empty() ? d.name : d.path;
      std::string_view layer;
      for (const NativeLayer& L : r.native)
        for (const std::string& member : L.dsos)
          if (member == path && (d.main == (L.name == kRuntimeLayer))) layer = L.name;
      w.begin_object();
      w.key("name").value(d.name);
      w.key("path").value(d.path);
      w.key("main").value(d.main);
      w.key("layer").value(layer);
      w.end_object();
    }
    w.end_array();
  }
  w.end_object();
}
}  // namespace

std::string JsonReport::render(const RunParams& p, const std::vector<Sample>& samples, const RunResult& r) {
  JsonWriter w;
  w.begin_object();
  w.key("schema").value("dalkit-stress-report");
  w.key("version").value(kSchemaVersion);

  w.key("run").begin_object();
  w.key("driver").value(p.driver);
  w.key("runtime").value(p.runtime);
  w.key("mode").value(p.mode);
  w.key("unit").value(unit_words(p.unit).name);  // what queries_planned, queries and slopes count
  w.key("queries_planned").value(p.queries_planned);
  w.key("sample_every").value(p.sample_every);
  w.key("warmup_share").value(p.warmup_share);
  w.key("warmup_end_queries").value(r.warmup_boundary_queries);
  w.key("threads").value(static_cast<int64_t>(p.threads));
  w.key("force_gc").value(p.force_gc);
  w.key("min_samples").value(static_cast<int64_t>(p.min_samples));
  w.key("pid").value(static_cast<int64_t>(getpid()));
  w.key("started_unix_ms").value(r.started_unix_ms);
  w.end_object();

  w.key("startup").begin_object();
  w.key("rss_after_load_bytes").maybe(r.startup.rss_after_load);
  w.key("ns_to_first_query").maybe(r.startup.ns_to_first_query);
  w.end_object();

  const RunCounts& c = r.counts;
  w.key("counts").begin_object();
  w.key("queries").value(c.queries);
  w.key("bytes_in").value(c.bytes_in);
  w.key("bytes_out").value(c.bytes_out);
  w.key("errors").value(c.errors);
  w.key("data_transferred_mib")
      .value((static_cast<double>(c.bytes_in) + static_cast<double>(c.bytes_out)) / (1024.0 * 1024.0));
  w.end_object();

  w.key("timing").begin_object();
  w.key("wall_s").value(r.wall_s);
  w.key("cpu_user_s").value(r.cpu_user_s);
  w.key("cpu_sys_s").value(r.cpu_sys_s);
  w.key("cpu_percent").value(r.cpu_percent);
  w.key("queries_per_second").value(r.queries_per_second);
  w.end_object();

  const LatencySummary& l = r.latency;
  w.key("latency_ns").begin_object();
  w.key("count").value(l.count);
  if (l.count > 0) {
    w.key("min").value(l.min);
    w.key("p50").value(l.p50);
    w.key("p97_5").value(l.p97_5);
    w.key("p99").value(l.p99);
    w.key("max").value(l.max);
    w.key("mean").value(l.mean);
    w.key("stdev").value(l.stdev);
  }
  w.end_object();

  // The distribution for drawing (the HTML report): [low_ns, high_ns, count]
  // per non-empty bin, ascending (latency_histogram.hpp, LatencySummary::bins).
  w.key("latency_histogram").begin_object();
  w.key("buckets").begin_array();
  for (const LatencyBin& b : l.bins) {
    w.begin_array().value(b.low).value(b.high).value(static_cast<int64_t>(b.count)).end_array();
  }
  w.end_array();
  w.end_object();

  // Metric names and units once, so a consumer need not hard-code them.
  w.key("metrics").begin_array();
  for (int m = 0; m < kMetricCount; ++m) {
    const MetricInfo& mi = metric_info(static_cast<Metric>(m));
    w.begin_object().key("name").value(mi.name).key("unit").value(unit_name(mi.unit)).end_object();
  }
  // The allocation tracer's layers: each is its own metric, named like it.
  for (const NativeLayer& L : r.native)
    w.begin_object().key("name").value(L.name).key("unit").value(unit_name(Unit::Bytes)).end_object();
  w.end_array();

  w.key("samples").begin_array();
  for (size_t i = 0; i < samples.size(); ++i) {
    const Sample& s = samples[i];
    w.begin_object();
    w.key("index").value(static_cast<int64_t>(i));
    w.key("kind").value(i == 0 ? "start" : (i + 1 == samples.size() ? "end" : "iteration"));
    w.key("queries").value(s.queries);
    w.key("warmup").value(static_cast<double>(s.queries) < r.warmup_boundary_queries);
    w.key("wall_s").value(s.wall_s);
    w.key("cpu_s").value(s.cpu_s);
    for (int m = 0; m < kMetricCount; ++m) w.key(metric_info(static_cast<Metric>(m)).name).maybe(s.values[m]);
    for (const NativeLayer& L : r.native) w.key(L.name).maybe(L.values[i]);
    w.end_object();
  }
  w.end_array();

  w.key("summary").begin_object();
  for (int m = 0; m < kMetricCount; ++m) {
    w.key(metric_info(static_cast<Metric>(m)).name);
    summary_object(w, r.metrics[m]);
  }
  for (const NativeLayer& L : r.native) {
    w.key(L.name);
    summary_object(w, L.summary);
  }
  w.end_object();

  w.key("layers").begin_array();
  // A fixed layer (metrics.hpp) or a native:<dso> one (its metric is itself,
  // and it lists the DSOs it sums).
  auto layer_object = [&](std::string_view name, std::string_view metric, Unit unit, const LayerVerdict& v,
                          const std::vector<std::string>* dsos) {
    w.begin_object();
    w.key("layer").value(name);
    w.key("metric").value(metric);
    w.key("unit").value(unit_name(unit));
    if (dsos) {
      w.key("dsos").begin_array();
      for (const std::string& d : *dsos) w.value(d);
      w.end_array();
    }
    w.key("verdict").value(verdict_name(v.status));
    w.key("partial").value(v.partial);
    w.key("slope_limit_per_mquery").value(v.threshold.slope_limit * 1e6);
    w.key("min_growth").value(v.threshold.min_growth);
    // start, end, growth and slope are the metric's: summary[metric].
    if (v.status != VerdictStatus::NotAvailable) {
      w.key("block_minima").begin_array();
      for (double m : v.block_minima) w.value(m);
      w.end_array();
      w.key("rising_blocks").value(static_cast<int64_t>(v.rising_steps));
      w.key("rising_blocks_needed").value(static_cast<int64_t>(v.needed_steps));
      w.key("last_block_rising").value(v.still_rising);
      w.key("slope_over").value(v.slope_over);
      w.key("growth_over").value(v.growth_over);
      w.key("persistent").value(v.persistent);
      w.key("borderline").value(v.borderline);
      w.key("borderline_reason");
      if (v.borderline)
        w.value(v.borderline_reason);
      else
        w.null();
    }
    w.key("reason").value(v.reason);
    w.end_object();
  };
  for (const LayerVerdict& v : r.layers) {
    const LayerInfo& li = layer_info(v.layer);
    layer_object(li.name, metric_info(li.metric).name, metric_info(li.metric).unit, v, nullptr);
  }
  for (const NativeLayer& L : r.native) layer_object(L.name, L.name, Unit::Bytes, L.verdict, &L.dsos);
  w.end_array();

  attribution_object(w, r);

  w.key("verdict").begin_object();
  w.key("overall").value(r.overall);
  w.key("exit_code").value(static_cast<int64_t>(r.exit_code));
  w.key("queries_answered").value(r.answered);
  w.key("interrupted").value(r.interrupted);
  w.key("interrupt_cause");
  if (r.interrupted && !r.interrupt_cause.empty())
    w.value(r.interrupt_cause);
  else
    w.null();
  w.key("partial").value(r.partial);
  w.key("span").begin_object();  // the samples growth and slope are measured over
  w.key("samples").value(static_cast<int64_t>(r.post_warmup_samples));
  if (r.post_warmup_samples > 0) {
    w.key("first_queries").value(r.span_first_queries);
    w.key("last_queries").value(r.span_last_queries);
  } else {
    w.key("first_queries").null();
    w.key("last_queries").null();
  }
  w.end_object();
  w.key("leaking_layers").begin_array();
  for (const auto& n : r.leaking_layers) w.value(n);
  w.end_array();
  w.key("errors").begin_array();
  for (const auto& e : r.errors) w.value(e);
  w.end_array();
  w.key("borderline").value(r.borderline);
  w.key("borderline_layers").begin_array();
  for (const auto& n : r.borderline_layers) w.value(n);
  w.end_array();
  // A confirmation run (--confirm): the borderline run it repeats; this
  // run's verdict is the one that stands.
  w.key("confirms");
  if (r.confirms) {
    const ConfirmedRun& c = *r.confirms;
    w.begin_object();
    w.key("queries_planned").value(c.queries_planned);
    w.key("overall").value(c.overall);
    w.key("exit_code").value(static_cast<int64_t>(c.exit_code));
    w.key("leaking_layers").begin_array();
    for (const auto& n : c.leaking_layers) w.value(n);
    w.end_array();
    w.key("borderline_layers").begin_array();
    for (const auto& n : c.borderline_layers) w.value(n);
    w.end_array();
    w.end_object();
  } else {
    w.null();
  }
  w.end_object();

  w.end_object();
  std::string out = w.str();
  out += '\n';
  return out;
}

}  // namespace dalmon
