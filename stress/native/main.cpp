// dalstress -- the native stress driver of the kit (docs/dalstress.md).
//
// Runs a workload (docs/workloads.md; the reference query by default) N
// times through libdalshim.so's C ABI (plain calls or libffi), checks every
// answer, and drives the monitor
// (dalmonitor.h): start, startup figures, latencies, counts, a sample every
// --sample-every queries (the monitor forces the Go GC before reading the
// native figures), finish, text and JSON reports.  The exit code is the
// monitor's: 0 no leak, 1 leak, 2 error.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "attribute.hpp"
#include "dalmonitor.h"
#include "dalshim.h"
#include "data_dir.hpp"
#include "grouped.hpp"
#include "html_report.hpp"
#include "options.hpp"
#include "output_file.hpp"
#include "postgres.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "worker.hpp"
#include "workload.hpp"
#include "workload_setup.hpp"

namespace dalstress {
namespace {

constexpr int kExitError = 2;
std::atomic<int> g_stop_signal{0};  // the signal that asked the run to stop, 0 if none

void on_stop_signal(int sig) { g_stop_signal.store(sig, std::memory_order_relaxed); }

// SIGINT (Ctrl-C) and SIGTERM stop the run cleanly: the workers stop after
// their current chunk, the END sample is taken, the report is printed as an
// interrupted run, the JSON written, the temporary directory removed, exit 2.
// A second signal kills at once (SA_RESETHAND), for a run stuck in a call.
// SA_ONSTACK because the Go runtime requires it of every handler in a
// process that hosts Go (golang/go#11794).  The handler only sets a flag,
// so it is async-signal-safe on any thread, Go's included.
void install_stop_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_ONSTACK | SA_RESTART | SA_RESETHAND;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int fail_early(const std::string& msg) {
  std::fprintf(stderr, "dalstress: %s\n", msg.c_str());
  return kExitError;
}

struct RunState {
  const Options& o;
  Shared& shared;
  int64_t run;
  int64_t sample_every;
  Progress& progress;
  int samples_failed = 0;

  bool stopping() const {
    return shared.stop.load(std::memory_order_relaxed) || g_stop_signal.load(std::memory_order_relaxed) != 0;
  }
  void sample(int64_t done) {
    // Native driver: no JS heap, so the four JS figures are -1 (n/a).  The
    // monitor forces the Go GC (force_gc=1, DAL_STATS_FORCE_GC) before it
    // reads Go heap, SQLite, buffers and statements, then reads RSS/malloc.
    if (dalmon_sample(run, done, -1, -1, -1, -1) < 0) {
      ++samples_failed;
      std::fprintf(stderr, "dalstress: dalmon_sample(%lld) failed: %s\n", static_cast<long long>(done),
                   dalmon_last_error());
    }
  }
};

// One thread: sample points are exact multiples of sample_every.
int64_t run_single(RunState& st, QueryLoop& e, int64_t done) {
  constexpr int64_t kChunk = 4096;
  const int64_t total = st.o.queries;
  int64_t next_sample = st.sample_every;
  while (done < total && !st.stopping()) {
    const int64_t target = std::min(total, next_sample);
    while (done < target && !st.stopping()) {
      done += e.run(std::min(kChunk, target - done));
      e.flush();
      st.progress.update(done);
    }
    if (done == next_sample && done < total) {
      st.sample(done);
      next_sample += st.sample_every;
    }
  }
  return done;
}

// Several threads on one handle: each issues its share of every interval
// between two sample points and waits there; when all have arrived (no
// query in flight) the main thread samples at exactly that count and
// releases them.  So the samples fall at the same counts as with one thread,
// however fast the threads run (as the JS drivers' --workers,
// stress/js/sample-points.js).
int64_t run_threads(RunState& st, std::vector<std::unique_ptr<QueryLoop>>& loops, int64_t done) {
  static constexpr int64_t kChunk = 1024;
  const int n = static_cast<int>(loops.size());
  const int64_t started = done, total = st.o.queries, every = st.sample_every;
  // Thread t's share of the first x queries after `started`; the shares sum to x.
  auto share = [n](int t, int64_t x) { return x / n + (t < x % n ? 1 : 0); };
  const int64_t first_point = (started / every + 1) * every;
  std::atomic<int64_t> progress{done};
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0, finished = 0;  // guarded by mu
  int64_t generation = 0;         // sample points released so far
  bool sampling_over = false;     // the main thread takes no more samples: nobody waits
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(n));
  for (int t = 0; t < n; ++t) {
    threads.emplace_back([&, t, e = loops[static_cast<size_t>(t)].get()] {
      int64_t mine = 0;
      for (int64_t point = first_point;; point += every) {
        const int64_t until = share(t, std::min(point, total) - started);
        while (mine < until && !st.stopping()) {
          const int64_t did = e->run(std::min(kChunk, until - mine));
          e->flush();
          mine += did;
          progress.fetch_add(did, std::memory_order_relaxed);
        }
        if (mine < until || point >= total) break;  // stopped, or its share is done
        std::unique_lock lk(mu);
        ++arrived;
        const int64_t g = generation;
        cv.notify_all();
        cv.wait(lk, [&] { return generation != g || sampling_over; });
      }
      std::lock_guard lk(mu);
      ++finished;
      cv.notify_all();
    });
  }
  for (int64_t point = first_point; point < total; point += every) {
    std::unique_lock lk(mu);
    // Woken by arrivals; every 100 ms for the progress line.
    while (!cv.wait_for(lk, std::chrono::milliseconds(100), [&] { return arrived + finished == n; }))
      st.progress.update(progress.load(std::memory_order_relaxed));
    if (finished > 0) break;  // a thread stopped early (a signal, --max-errors): no more samples
    lk.unlock();
    st.sample(point);
    st.progress.update(point);
    lk.lock();
    arrived = 0;
    ++generation;
    cv.notify_all();
  }
  {
    std::lock_guard lk(mu);
    sampling_over = true;
    cv.notify_all();
  }
  for (auto& t : threads) t.join();
  return progress.load();
}

// What one run leaves for the reports: its monitor run (finished, not yet
// ended; 0 when none started) and its exit code so far.
struct RunOutcome {
  int64_t run = 0;
  int code = kExitError;
};

RunOutcome failed(const std::string& msg) { return RunOutcome{0, fail_early(msg)}; }

// One run of o.queries queries on the data directory `dir` (dir_note: how
// it came to be, for the first stderr line), or with --postgres on the
// database at that URL: open the DAL there, create and seed the workload's
// database (on PostgreSQL the run's schema, dropped at the end), query,
// sample, finish.  t_main: the
// clock "time to first query" starts from.  confirms: the run this one
// repeats (--confirm), or 0.  What fails after the run (closing the
// handle) goes to late_errors.
RunOutcome run_once(const Options& o, const Workload& workload, const std::string& dir, const char* dir_note,
                    int64_t t_main, int64_t rss_after_load, int64_t confirms, std::vector<std::string>& late_errors) {
  std::string err;
  const std::string dal_opts = o.dal_open_options();
  const bool postgres = !o.postgres.empty();
  // A URL may hold a password: never printed.
  const std::string shown = postgres ? redacted_url(dir) : dir;
  const int64_t h = dalshim_open(dir.c_str(), dal_opts.empty() ? nullptr : dal_opts.c_str());
  if (h <= 0)
    return failed("dalshim_open(" + shown + ", \"" + dal_opts + "\"): code " + std::to_string(h) + ": " +
                  dalshim_last_error());
  // On PostgreSQL the schema outlives the handle: dropped however the run ends.
  auto close_handle = [&] {
    std::string why;
    if (postgres && !drop_run_schema(h, workload.db(), why)) late_errors.push_back(why);
    return dalshim_close(h);
  };

  // Schema and seed: before dalmon_start, so before the first sample and
  // not counted as queries.
  try {
    if (!prepare_workload_database(h, workload, err)) {
      close_handle();
      return failed(err);
    }
  } catch (const WorkloadError& e) {
    close_handle();
    return failed(e.what());
  }

  Shared shared;
  if (workload.constant()) {
    // Encoded once (the reference workload: 87 bytes out, 34 back).
    std::vector<int64_t> env(static_cast<size_t>(workload.slots()));
    ExpandedQuery q;
    workload.expand(0, 0, env.data(), q);
    shared.request = std::move(q.request);
    shared.expected = std::move(q.expect);
  } else {
    shared.workload = &workload;
  }
  shared.max_errors = o.max_errors;

  // No ';' or ',' here: they separate dalmon_start's parameters.
  const int32_t dv = dalshim_dal_version();
  const std::string runtime = std::string("native c++ g++ ") + __VERSION__ + " dal " + std::to_string(dv / 1000000) +
                              "." + std::to_string(dv / 1000 % 1000) + "." + std::to_string(dv % 1000);
  const std::string params = o.monitor_params_string(runtime, workload.name());
  const int64_t run = dalmon_start(params.c_str());
  if (run <= 0) {
    close_handle();
    return failed(std::string("dalmon_start(\"") + params + "\"): " + dalmon_last_error());
  }
  shared.run = run;
  const int64_t sample_every = o.effective_sample_every();

  std::fprintf(stderr,
               "dalstress: workload %s (%s), %s queries, via %s, mode %s, %d thread%s, sample every %s, warm-up %.2f, "
               "%s %s%s%s%s\n",
               workload.name().c_str(), workload.path().c_str(), grouped(o.queries).c_str(), via_name(o.via),
               mode_name(o.mode), o.threads, o.threads == 1 ? "" : "s", grouped(sample_every).c_str(), o.warmup_share,
               postgres ? "postgres" : "data dir", shown.c_str(), dir_note, dal_opts.empty() ? "" : ", dal options ",
               dal_opts.c_str());

  std::vector<std::unique_ptr<QueryLoop>> loops;
  try {
    for (int t = 0; t < o.threads; ++t)
      loops.push_back(make_query_loop(o, shared, h, 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(t + 1), t));
  } catch (const std::exception& e) {
    dalmon_fail(run, e.what());
    std::fprintf(stderr, "dalstress: %s\n", e.what());
  }

  Progress progress(o.progress, o.queries);
  RunState st{o, shared, run, sample_every, progress};
  int64_t done = 0;
  if (!loops.empty()) {
    // The first query, timed from main(): "time to first query" (load, open,
    // database creation, first round trip).  It counts as query 1 of N.
    done = loops[0]->run(1);
    const int64_t ns_first = now_ns() - t_main;
    loops[0]->flush();
    dalmon_mark_startup(run, rss_after_load, ns_first);
    st.sample(done);  // START
    done = o.threads == 1 ? run_single(st, *loops[0], done) : run_threads(st, loops, done);
    for (auto& e : loops) e->flush();
  }
  progress.finish(done);

  {
    std::lock_guard lk(shared.mu);
    if (shared.failed_calls || shared.wrong_answers) {
      std::string why =
          grouped(shared.failed_calls) + " failed call(s) and " + grouped(shared.wrong_answers) + " wrong answer(s)";
      if (shared.stop.load()) why += "; stopped after --max-errors " + grouped(o.max_errors);
      if (!shared.first_errors.empty()) why += "; first: " + shared.first_errors.front();
      dalmon_fail(run, why.c_str());
      std::fprintf(stderr, "dalstress: %s\n", why.c_str());
      for (const auto& m : shared.first_errors) std::fprintf(stderr, "dalstress:   %s\n", m.c_str());
    }
  }
  st.sample(done);  // END (after the monitor's forced Go GC)
  if (st.samples_failed) dalmon_fail(run, "some monitor samples failed (see stderr)");
  // Stopped by a signal before the last query: the monitor reports the run
  // as interrupted after `done` queries, with partial verdicts for the
  // layers that have enough samples (exit 2 either way).  A signal that
  // arrives after the last query changes nothing: the run is complete.
  if (const int sig = g_stop_signal.load(); sig != 0 && done < o.queries) {
    if (dalmon_mark_interrupted(run, sig == SIGTERM ? "SIGTERM" : "SIGINT") != DALMON_OK) {
      std::fprintf(stderr, "dalstress: dalmon_mark_interrupted: %s\n", dalmon_last_error());
      dalmon_fail(run, "interrupted by a signal");
    }
  }

  // Everything that can still fail happens before the text report is
  // printed, so its verdict line states the exit code the process returns.
  // A confirmation run names the run it repeats (before it is finished).
  if (confirms != 0 && dalmon_mark_confirmation(run, confirms) != DALMON_OK)
    late_errors.push_back(std::string("dalmon_mark_confirmation: ") + dalmon_last_error());
  int code = dalmon_finish(run);
  if (code < 0) {
    late_errors.push_back(std::string("dalmon_finish: ") + dalmon_last_error());
    code = kExitError;
  }
  loops.clear();
  if (int32_t rc = close_handle(); rc != DALSHIM_OK)
    late_errors.push_back("dalshim_close: code " + std::to_string(rc) + ": " + dalshim_last_error());
  return RunOutcome{run, code};
}

int real_main(int argc, char** argv) {
  const int64_t t_main = now_ns();
  Options o;
  std::string err;
  if (!parse_options(argc, argv, o, err)) {
    std::fprintf(stderr, "dalstress: %s\n\n%s", err.c_str(), usage().c_str());
    return kExitError;
  }
  if (o.help) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  // --postgres local: from here on in the copy of dalstress that
  // pg-cluster.sh runs beside a throwaway server (before --attribute, so
  // that the server is not started under the tracer).
  if (o.postgres == "local" && !under_local_postgres(argv, o.postgres, err))
    return fail_early("--postgres local: " + err);
  // --attribute: from here on under the allocation tracer (this call
  // executes dalstress again with it preloaded, or says why it cannot).
  if (o.attribute && !run_under_tracer(argv, err)) return fail_early("--attribute: " + err);
  // Every output path and the data directory are checked before the DAL is
  // loaded: a run that cannot deliver its report must not start (a default
  // run takes about 18 minutes).
  std::optional<OutputFile> json =
      o.json_path.empty() ? std::nullopt : OutputFile::open("JSON report", o.json_path, err);
  if (!o.json_path.empty() && !json) return fail_early(err);
  if (!o.html_path.empty() && !kHtmlPageBuilt) return fail_early("option --html: " + std::string(kHtmlPageHead));
  std::optional<OutputFile> html =
      o.html_path.empty() ? std::nullopt : OutputFile::open("HTML report", o.html_path, err);
  if (!o.html_path.empty() && !html) return fail_early(err);
  // The workload is read and trial-expanded before anything runs: a bad
  // file stops dalstress here, with exit 2.
  std::optional<Workload> workload;
  try {
    // On PostgreSQL the requests name a schema of this run's own.
    const WorkloadTarget target{o.backend(), o.postgres.empty() ? "" : run_schema_name()};
    workload.emplace(Workload::load(Workload::locate(o.workload), target));
  } catch (const WorkloadError& e) {
    return fail_early(e.what());
  }
  std::optional<DataDir> data;
  if (o.postgres.empty()) {
    try {
      data.emplace(o.db_dir);
    } catch (const std::exception& e) {
      return fail_early(e.what());
    }
  }
  const std::string& dir = data ? data->path() : o.postgres;

  // Load the DAL first: "RSS after load" is read right after it.
  if (int32_t rc = dalshim_load(nullptr); rc != DALSHIM_OK)
    return fail_early("dalshim_load: code " + std::to_string(rc) + ": " + dalshim_last_error());
  const int64_t rss_after_load = dalmon_rss_bytes();
  install_stop_signals();

  std::vector<std::string> late_errors;
  const std::string note = !data               ? " (schema " + workload->db() + ")"
                           : data->temporary() ? " (temporary)"
                           : data->created()   ? " (created)"
                                               : "";
  const RunOutcome first = run_once(o, *workload, dir, note.c_str(), t_main, rss_after_load, 0, late_errors);
  if (first.run == 0) return first.code;
  RunOutcome last = first;
  // --confirm: a borderline verdict (dalmonitor.h, dalmon_borderline) is
  // run again with twice the queries in DIR/confirm; that run names this
  // one and its verdict stands.  This run's text report is printed first.
  std::optional<DataDir> confirm_dir;
  if (o.confirm && late_errors.empty() && g_stop_signal.load() == 0 && dalmon_borderline(first.run) == 1) {
    std::string text;
    if (!monitor_text_report(first.run, text, err)) text = "(no text report: " + err + ")\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
    Options again = o;
    again.queries = 2 * o.queries;
    // On PostgreSQL the same database: the schema was dropped, and the
    // second run creates it again.
    if (data) {
      try {
        confirm_dir.emplace(dir + "/confirm");
      } catch (const std::exception& e) {
        dalmon_end(first.run);
        return fail_early(e.what());
      }
    }
    const std::string again_dir = confirm_dir ? confirm_dir->path() : dir;
    std::fprintf(stderr, "dalstress: the verdict is borderline: running again with %s queries in %s (--confirm)\n",
                 grouped(again.queries).c_str(), confirm_dir ? again_dir.c_str() : "the same database");
    last = run_once(again, *workload, again_dir,
                    !confirm_dir             ? note.c_str()
                    : confirm_dir->created() ? " (created)"
                                             : "",
                    now_ns(), rss_after_load, first.run, late_errors);
    if (last.run == 0) {
      dalmon_end(first.run);
      return last.code;
    }
  }
  const int64_t run = last.run;
  int code = last.code;

  if (json || html) {
    std::string bytes;
    if (!monitor_json_report(run, bytes, err)) {
      late_errors.push_back("no JSON report from the monitor: " + err);
    } else {
      if (json && !json->write_all(bytes, err)) late_errors.push_back(err);
      if (html && !html->write_all(html_report(bytes), err)) late_errors.push_back(err);
    }
  }
  std::string text;
  if (!monitor_text_report(run, text, err)) text = "(no text report: " + err + ")\n";
  if (!late_errors.empty()) {
    code = kExitError;
    std::string reason = late_errors.front();
    for (size_t i = 1; i < late_errors.size(); ++i) reason += "; " + late_errors[i];
    text = with_error_verdict(text, reason);
    for (const auto& e : late_errors) std::fprintf(stderr, "dalstress: %s\n", e.c_str());
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (!text.empty() && text.back() != '\n') std::fputc('\n', stdout);
  std::fflush(stdout);
  if (last.run != first.run) dalmon_end(last.run);
  dalmon_end(first.run);
  // The DAL is never unloaded (a Go runtime cannot be); `data` removes a
  // temporary data directory on the way out.
  return code;
}

}  // namespace
}  // namespace dalstress

int main(int argc, char** argv) {
  try {
    return dalstress::real_main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dalstress: fatal: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "dalstress: fatal: unknown exception\n");
  }
  return 2;
}
