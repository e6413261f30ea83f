#include "monitor.hpp"

#include "json_report.hpp"
#include "text_report.hpp"

namespace dalmon {

namespace {
int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}
}  // namespace

Monitor::Monitor(RunParams params, NativeStatsSource *source, std::unique_ptr<ProcessProbe> probe)
    : params_(std::move(params)),
      source_(source),
      probe_(probe ? std::move(probe) : std::make_unique<LinuxProcessProbe>()),
      t0_(std::chrono::steady_clock::now()),
      started_unix_ms_(unix_ms_now()) {
  // CPU is reported for the run only, not for loading the runtime before it.
  proc0_ = probe_->read();
}

int64_t Monitor::sample(int64_t queries_done, const JsFigures &js, std::string &error) {
  std::lock_guard lk(mu_);
  if (result_) {
    error = "run already finished";
    return -1;
  }
  if (queries_done < 0) {
    error = "queries_done < 0";
    return -1;
  }
  if (!samples_.empty() && queries_done < samples_.back().queries) {
    error = "queries_done went backwards (" + std::to_string(queries_done) + " < " +
            std::to_string(samples_.back().queries) + ")";
    return -1;
  }
  Sample s;
  s.values.fill(-1);
  s.queries = queries_done;
  s[Metric::JsHeapUsed] = js.heap_used < 0 ? -1 : js.heap_used;
  s[Metric::JsHeapTotal] = js.heap_total < 0 ? -1 : js.heap_total;
  s[Metric::JsExternal] = js.external < 0 ? -1 : js.external;
  s[Metric::JsArrayBuffers] = js.array_buffers < 0 ? -1 : js.array_buffers;

  // Native first: a forced Go GC may return memory to malloc/OS, and RSS
  // read after it reflects the collected state.
  NativeStatsSource *src = source_ ? source_ : native_stats_source();
  NativeStats ns;
  if (src && src->read(params_.force_gc, ns)) {
    s[Metric::GoHeapInuse] = ns.go_heap_inuse;
    s[Metric::GoHeapAlloc] = ns.go_heap_alloc;
    s[Metric::GoGcCycles] = ns.go_gc_cycles;
    s[Metric::GoSys] = ns.go_sys;
    s[Metric::SqliteMemory] = ns.sqlite_memory_used;
    s[Metric::DalBuffers] = ns.dal_buffers_live;
    s[Metric::DalBufferBytes] = ns.dal_buffer_bytes_live;
    s[Metric::DalStatements] = ns.dal_statements_live;
    s[Metric::DalConnections] = ns.sqlite_connections;
    s[Metric::ShimBuffers] = ns.shim_buffers_live;
    s[Metric::ShimBufferBytes] = ns.shim_buffer_bytes_live;
    s[Metric::PlantedBytes] = ns.dal_planted_bytes;
  }
  ProcessFigures pf = probe_->read();
  s[Metric::Rss] = pf.rss;
  s[Metric::MallocInUse] = pf.malloc_in_use;
  s.cpu_s = (pf.cpu_user_s - proc0_.cpu_user_s) + (pf.cpu_sys_s - proc0_.cpu_sys_s);
  s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  samples_.push_back(s);
  return static_cast<int64_t>(samples_.size() - 1);
}

void Monitor::count(int64_t queries, int64_t bytes_in, int64_t bytes_out, int64_t errors) noexcept {
  // Relaxed: these are totals read once at the end, after the workers joined.
  if (queries) queries_.fetch_add(queries, std::memory_order_relaxed);
  if (bytes_in) bytes_in_.fetch_add(bytes_in, std::memory_order_relaxed);
  if (bytes_out) bytes_out_.fetch_add(bytes_out, std::memory_order_relaxed);
  if (errors) errors_.fetch_add(errors, std::memory_order_relaxed);
}

RunCounts Monitor::counts() const noexcept {
  return {queries_.load(std::memory_order_relaxed), bytes_in_.load(std::memory_order_relaxed),
          bytes_out_.load(std::memory_order_relaxed), errors_.load(std::memory_order_relaxed)};
}

void Monitor::mark_startup(int64_t rss_after_load, int64_t ns_to_first_query) {
  std::lock_guard lk(mu_);
  startup_.rss_after_load = rss_after_load >= 0 ? rss_after_load : probe_->read().rss;
  startup_.ns_to_first_query = ns_to_first_query >= 0 ? ns_to_first_query : -1;
}

void Monitor::fail(const std::string &reason) {
  std::lock_guard lk(mu_);
  failures_.push_back(reason.empty() ? std::string("driver reported a failure") : reason);
}

bool Monitor::finished() const {
  std::lock_guard lk(mu_);
  return result_.has_value();
}

std::vector<Sample> Monitor::samples() const {
  std::lock_guard lk(mu_);
  return samples_;
}

Startup Monitor::startup() const {
  std::lock_guard lk(mu_);
  return startup_;
}

RunResult Monitor::analyze() const {
  ProcessFigures pf = probe_->read();
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  std::lock_guard lk(mu_);
  if (result_) return *result_;
  return analyze_locked(wall, pf.cpu_user_s - proc0_.cpu_user_s, pf.cpu_sys_s - proc0_.cpu_sys_s);
}

RunResult Monitor::analyze_locked(double wall_s, double cpu_user_s, double cpu_sys_s) const {
  RunResult r;
  r.counts = counts();
  r.latency = latency_.summary();
  r.wall_s = wall_s;
  r.cpu_user_s = cpu_user_s;
  r.cpu_sys_s = cpu_sys_s;
  r.cpu_percent = wall_s > 0 ? (cpu_user_s + cpu_sys_s) / wall_s * 100.0 : 0;

  // Answered queries: the driver's count if it counts, else the x of the last sample.
  int64_t answered = r.counts.queries;
  if (answered == 0 && !samples_.empty()) answered = samples_.back().queries;
  r.queries_per_second = wall_s > 0 ? static_cast<double>(answered) / wall_s : 0;

  const double basis = params_.queries_planned > 0
                           ? static_cast<double>(params_.queries_planned)
                           : (samples_.empty() ? 0.0 : static_cast<double>(samples_.back().queries));
  r.warmup_boundary_queries = params_.warmup_share * basis;

  std::array<MetricSeries, kMetricCount> series;
  for (const Sample &s : samples_)
    for (int m = 0; m < kMetricCount; ++m) series[m].add(static_cast<double>(s.queries), s.values[m]);
  for (int m = 0; m < kMetricCount; ++m) r.metrics[m] = series[m].summarize(r.warmup_boundary_queries);

  bool insufficient = false;
  for (int l = 0; l < kLayerCount; ++l) {
    Layer layer = static_cast<Layer>(l);
    LayerVerdict v = LeakDetector::judge(layer, series[static_cast<int>(layer_info(layer).metric)],
                                         r.warmup_boundary_queries, params_.thresholds[l],
                                         params_.min_samples);
    if (v.status == VerdictStatus::Leak) r.leaking_layers.emplace_back(layer_info(layer).name);
    if (v.status == VerdictStatus::Insufficient) insufficient = true;
    r.layers.push_back(std::move(v));
  }

  // Exit code 2 wins over 1: a run with wrong answers or too few samples
  // proves nothing either way, and must not pass as "no leak".
  r.errors = failures_;
  if (r.counts.errors > 0)
    r.errors.push_back(std::to_string(r.counts.errors) + " query errors or wrong answers counted");
  if (params_.queries_planned > 0 && answered < params_.queries_planned)
    r.errors.push_back("missing answers: " + std::to_string(answered) + " of " +
                       std::to_string(params_.queries_planned) + " planned queries answered");
  if (samples_.empty()) r.errors.push_back("no samples taken");
  else if (insufficient)
    r.errors.push_back("too few samples after warm-up for a verdict (need " +
                       std::to_string(params_.min_samples) + "; lower sample_every)");
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

const RunResult &Monitor::finish() {
  ProcessFigures pf = probe_->read();
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  std::lock_guard lk(mu_);
  if (!result_)
    result_ = analyze_locked(wall, pf.cpu_user_s - proc0_.cpu_user_s, pf.cpu_sys_s - proc0_.cpu_sys_s);
  return *result_;
}

const std::string &Monitor::text_report() {
  finish();  // idempotent; reports only describe a frozen run
  std::lock_guard lk(mu_);
  if (text_.empty()) text_ = TextReport::render(params_, samples_, startup_, *result_);
  return text_;
}

const std::string &Monitor::json_report() {
  finish();
  std::lock_guard lk(mu_);
  if (json_.empty()) json_ = JsonReport::render(params_, samples_, startup_, *result_, started_unix_ms_);
  return json_;
}

}  // namespace dalmon
