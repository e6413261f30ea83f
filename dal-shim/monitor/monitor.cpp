#include "monitor.hpp"

#include "json_report.hpp"
#include "run_conclusion.hpp"
#include "text_report.hpp"

namespace dalmon {

namespace {
int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}
}  // namespace

Monitor::Monitor(RunParams params, NativeStatsSource* source, std::unique_ptr<ProcessProbe> probe, DsoStatsSource* dsos)
    : params_(std::move(params)),
      source_(source),
      probe_(probe ? std::move(probe) : std::make_unique<LinuxProcessProbe>()),
      dsos_(dsos ? dsos : &process_dso_source()),
      t0_(std::chrono::steady_clock::now()),
      started_unix_ms_(unix_ms_now()) {
  // CPU is reported for the run only, not for loading the runtime before it.
  proc0_ = probe_->read();
}

int64_t Monitor::sample(int64_t queries_done, const JsFigures& js, std::string& error) {
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
  NativeStatsSource* src = source_ ? source_ : native_stats_source();
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
    s[Metric::Goroutines] = ns.goroutines;
    s[Metric::PgPoolTotal] = ns.pg_pool_total;
    s[Metric::PgPoolIdle] = ns.pg_pool_idle;
    s[Metric::PgPoolAcquired] = ns.pg_pool_acquired;
    s[Metric::PgConnections] = ns.pg_connections;
    s[Metric::PgServerSessions] = ns.pg_server_sessions;
    s[Metric::PgStatements] = ns.pg_statements;
    s[Metric::PgReplicaSkips] = ns.pg_replica_skips;
  }
  read_dsos(s);
  ProcessFigures pf = probe_->read();
  s[Metric::Rss] = pf.rss;
  // metrics.cpp says why the rss layer leaves the JS heap and the growth of
  // file-backed pages out (a probe without the anonymous figure gives all
  // of RSS).
  // File-backed pages count at their level when the run started: RSS as
  // before, less only the code paged in since.  (Anonymous memory alone can
  // be less than the JS heap's committed size, whose pages need not all be
  // resident; a negative figure would read as "not available".)
  const int64_t js_heap_total = s[Metric::JsHeapTotal];
  const int64_t file0 = proc0_.rss >= 0 && proc0_.rss_anon >= 0 ? proc0_.rss - proc0_.rss_anon : 0;
  const int64_t resident = pf.rss_anon >= 0 ? pf.rss_anon + file0 : pf.rss;
  s[Metric::RssOutsideJsHeap] = resident < 0 ? -1 : resident - (js_heap_total > 0 ? js_heap_total : 0);
  s[Metric::MallocInUse] = pf.malloc_in_use;
  s.cpu_s = (pf.cpu_user_s - proc0_.cpu_user_s) + (pf.cpu_sys_s - proc0_.cpu_sys_s);
  s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  samples_.push_back(s);
  return static_cast<int64_t>(samples_.size() - 1);
}

// The allocation tracer's figure per DSO (native_layers.hpp), after the Go
// GC like the process figures.  Names are asked for once per new DSO.
void Monitor::read_dsos(Sample& s) {
  if (!dsos_->present()) return;
  DsoReading d;
  if (!dsos_->read(d)) return;
  if (!tracer_.present) {
    tracer_.present = true;
    tracer_.runtime_heap_visible = dsos_->runtime_heap_visible();
  }
  for (size_t i = tracer_.dsos.size(); i < d.bytes.size(); ++i)
    tracer_.dsos.push_back(dsos_->info(static_cast<int>(i)));
  tracer_.sample_bytes = d.sample_bytes;
  tracer_.dropped = d.dropped;
  s.dso_bytes = std::move(d.bytes);
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

void Monitor::fail(const std::string& reason) {
  std::lock_guard lk(mu_);
  failures_.push_back(reason.empty() ? std::string("driver reported a failure") : reason);
}

void Monitor::mark_interrupted(const std::string& cause) {
  std::lock_guard lk(mu_);
  interrupted_ = true;
  if (!cause.empty()) interrupt_cause_ = cause;
}

void Monitor::mark_confirmation(ConfirmedRun first) {
  std::lock_guard lk(mu_);
  confirms_ = std::move(first);
}

ConfirmedRun Monitor::as_confirmed() {
  const RunResult& r = finish();
  return ConfirmedRun{params_.queries_planned, r.exit_code, r.overall, r.leaking_layers, r.borderline_layers};
}

bool Monitor::finished() const {
  std::lock_guard lk(mu_);
  return result_.has_value();
}

const RunResult& Monitor::finish() {
  ProcessFigures pf = probe_->read();
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  std::lock_guard lk(mu_);
  if (!result_) {
    RunFacts f;
    f.counts = counts();
    f.latency = latency_.summary();
    f.startup = startup_;
    f.failures = failures_;
    f.interrupted = interrupted_;
    f.interrupt_cause = interrupt_cause_;
    f.confirms = confirms_;
    f.started_unix_ms = started_unix_ms_;
    f.tracer = tracer_;
    f.wall_s = wall;
    f.cpu_user_s = pf.cpu_user_s - proc0_.cpu_user_s;
    f.cpu_sys_s = pf.cpu_sys_s - proc0_.cpu_sys_s;
    result_ = conclude_run(params_, samples_, std::move(f));
  }
  return *result_;
}

const std::string& Monitor::text_report() {
  finish();  // idempotent; reports only describe a frozen run
  std::lock_guard lk(mu_);
  if (text_.empty()) text_ = TextReport::render(params_, samples_, *result_);
  return text_;
}

const std::string& Monitor::json_report() {
  finish();
  std::lock_guard lk(mu_);
  if (json_.empty()) json_ = JsonReport::render(params_, samples_, *result_);
  return json_;
}

}  // namespace dalmon
