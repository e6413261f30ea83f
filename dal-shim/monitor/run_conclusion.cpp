#include "run_conclusion.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

#include "concat.hpp"
#include "format.hpp"

namespace dalmon {

namespace {

std::string queries_text(int64_t answered, int64_t planned, const UnitWords& u) {
  const std::string many(u.plural);
  return planned > 0 ? grouped(answered) + " of " + grouped(planned) + " planned " + many
                     : grouped(answered) + " " + many;
}

}  // namespace

RunResult conclude_run(const RunParams& p, const std::vector<Sample>& samples, RunFacts f) {
  const UnitWords& u = unit_words(p.unit);
  RunResult r;
  r.counts = f.counts;
  r.latency = f.latency;
  r.startup = f.startup;
  r.started_unix_ms = f.started_unix_ms;
  r.interrupted = f.interrupted;
  r.interrupt_cause = std::move(f.interrupt_cause);
  r.confirms = std::move(f.confirms);
  r.wall_s = f.wall_s;
  r.cpu_user_s = f.cpu_user_s;
  r.cpu_sys_s = f.cpu_sys_s;
  r.cpu_percent = f.wall_s > 0 ? (f.cpu_user_s + f.cpu_sys_s) / f.wall_s * 100.0 : 0;

  // Answered queries: the driver's count if it counts, else the x of the last sample.
  r.answered = r.counts.queries;
  if (r.answered == 0 && !samples.empty()) r.answered = samples.back().queries;
  r.queries_per_second = f.wall_s > 0 ? static_cast<double>(r.answered) / f.wall_s : 0;

  // Warm-up is a share of the PLANNED run, also when the run stops early:
  // an interrupted run must not move the boundary into its own early growth.
  const double basis = p.queries_planned > 0 ? static_cast<double>(p.queries_planned)
                                             : (samples.empty() ? 0.0 : static_cast<double>(samples.back().queries));
  r.warmup_boundary_queries = p.warmup_share * basis;
  auto first_post = std::find_if(samples.begin(), samples.end(), [&](const Sample& s) {
    return static_cast<double>(s.queries) >= r.warmup_boundary_queries;
  });
  r.post_warmup_samples = static_cast<int>(samples.end() - first_post);
  if (first_post != samples.end()) {
    r.span_first_queries = first_post->queries;
    r.span_last_queries = samples.back().queries;
  }

  // The one summary per metric; the verdicts below read these.
  std::array<MetricSeries, kMetricCount> series;
  for (const Sample& s : samples)
    for (int m = 0; m < kMetricCount; ++m) series[m].add(static_cast<double>(s.queries), s.values[m]);
  for (int m = 0; m < kMetricCount; ++m) r.metrics[m] = series[m].summarize(r.warmup_boundary_queries);

  const bool complete = !r.interrupted && (p.queries_planned == 0 || r.answered >= p.queries_planned);
  int insufficient = 0, judged = 0;
  int fewest = INT_MAX;  // post-warm-up samples of the worst insufficient layer
  // Every layer's verdict counts the same way, fixed or native:<dso>.
  auto tally = [&](LayerVerdict& v, const SeriesSummary& s, std::string_view name) {
    if (v.status == VerdictStatus::Leak || v.status == VerdictStatus::NoLeak) {
      ++judged;
      if (!complete) v.partial = r.partial = true;
    }
    if (v.status == VerdictStatus::Leak) r.leaking_layers.emplace_back(name);
    if (v.borderline) r.borderline_layers.emplace_back(name);
    if (v.status == VerdictStatus::Insufficient) {
      ++insufficient;
      fewest = std::min(fewest, s.post_warmup_samples);
    }
  };
  for (int l = 0; l < kLayerCount; ++l) {
    const Layer layer = static_cast<Layer>(l);
    const int m = static_cast<int>(layer_info(layer).metric);
    // A layer of the DAL that no sample could read: the DAL was not loaded
    // (a --target without it), so the layer does not exist in this run.
    if (layer_info(layer).dal && !r.metrics[m].available) continue;
    LayerVerdict v = LeakDetector::judge(layer, series[m], r.metrics[m], p.thresholds[l], p.min_samples, u.name);
    tally(v, r.metrics[m], layer_info(layer).name);
    r.layers.push_back(std::move(v));
  }
  // The allocation tracer's layers, judged by the same rule (native_layers.hpp).
  r.tracer = std::move(f.tracer);
  r.native = native_layers(p, samples, r.tracer, r.warmup_boundary_queries);
  for (NativeLayer& L : r.native) tally(L.verdict, L.summary, L.name);

  // Exit code 2 wins over 1: a run with wrong answers, missing answers or too
  // few samples proves nothing either way, and must not pass as "no leak".
  // The sentences say what is true, with numbers grouped as in the report.
  r.errors = std::move(f.failures);
  if (r.counts.errors > 0) {
    r.errors.push_back(grouped(r.counts.errors) + (p.unit == WorkUnit::Query ? " query errors or wrong answers counted"
                                                                             : " failed iterations counted"));
  }
  if (r.interrupted) {
    r.errors.push_back("interrupted" + (r.interrupt_cause.empty() ? "" : " (" + r.interrupt_cause + ")") + " after " +
                       queries_text(r.answered, p.queries_planned, u));
  } else if (!complete) {
    const std::string done = queries_text(r.answered, p.queries_planned, u);
    r.errors.push_back(p.unit == WorkUnit::Query ? dalkit::concat("missing answers: ", done, " answered")
                                                 : dalkit::concat("missing iterations: ", done, " done"));
  }
  if (samples.empty()) {
    r.errors.push_back("no samples taken");
  } else if (insufficient > 0) {
    std::string need = "a verdict needs at least " + std::to_string(p.min_samples) +
                       " samples after warm-up (warm-up ends at " + dalkit::concat(u.name, " ") +
                       grouped(std::llround(r.warmup_boundary_queries)) + "); this run has " + std::to_string(fewest);
    // Stopped early: sampling more often would not have helped, running
    // longer would, so the advice is given only for a complete run.
    if (complete)
      need += "; take samples more often (sample_every)";
    else if (judged > 0)
      need += ", so " + std::to_string(insufficient) + " layers have no verdict";
    r.errors.push_back(need);
  }

  // An error is no verdict to confirm: running longer does not mend it.
  r.borderline = r.errors.empty() && !r.borderline_layers.empty();
  if (!r.errors.empty()) {
    r.exit_code = 2;
    r.overall = "error";
  } else if (!r.leaking_layers.empty()) {
    r.exit_code = 1;
    r.overall = "leak";
  } else {
    r.exit_code = 0;
    r.overall = "no leak";
  }
  return r;
}

}  // namespace dalmon
