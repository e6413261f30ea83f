// monitor.hpp -- one stress run: samples, latencies, counts, and the verdict.
//
// The one implementation of measurement for every driver (native C++, Node
// addon, Bun/Deno/koffi through the C ABI), so that all of them print and
// judge the same thing.
//
// Threads: sample(), mark_startup(), fail(), mark_interrupted() and finish()
// take a mutex and are meant for one controlling thread; record_latency()
// and count() are lock-free and may be called from any number of worker
// threads.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "dso_stats_source.hpp"
#include "latency_histogram.hpp"
#include "metrics.hpp"
#include "native_stats_source.hpp"
#include "process_probe.hpp"
#include "run_params.hpp"
#include "run_result.hpp"

namespace dalmon {

class Monitor {
 public:
  // source: nullptr = the process-wide one (set_native_stats_source) read at
  // each sample; probe: nullptr = LinuxProcessProbe; dsos: nullptr = the
  // allocation tracer preloaded in this process, if any (process_dso_source).
  explicit Monitor(RunParams params, NativeStatsSource* source = nullptr, std::unique_ptr<ProcessProbe> probe = nullptr,
                   DsoStatsSource* dsos = nullptr);

  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

  // Take a sample after the driver forced its runtime's GC.  queries_done
  // must not decrease.  Returns the sample index, or -1 with `error` set.
  int64_t sample(int64_t queries_done, const JsFigures& js, std::string& error);

  // Hot path, any thread.
  void record_latency(int64_t ns) noexcept { latency_.record(ns); }
  void record_latencies(const int64_t* ns, size_t count) noexcept { latency_.record_batch(ns, count); }
  void count(int64_t queries, int64_t bytes_in, int64_t bytes_out, int64_t errors) noexcept;

  // rss_after_load < 0: read this process's RSS now.
  void mark_startup(int64_t rss_after_load, int64_t ns_to_first_query);

  // Declare the run failed (a crash caught, a wrong answer, a verification
  // error).  Forces exit code 2; the message is reported.
  void fail(const std::string& reason);

  // Declare the run stopped early (a signal, a time limit).  Exit code 2,
  // reported as "interrupted after N queries", with a partial verdict for
  // every layer that has enough samples.  `cause` may be empty.
  void mark_interrupted(const std::string& cause);

  // Declare this run the confirmation of a borderline run (--confirm): the
  // reports then name that run and say that this run's verdict stands.
  void mark_confirmation(ConfirmedRun first);

  // What a confirmation run says of this one (finish() first, implicitly).
  ConfirmedRun as_confirmed();

  // Freeze the run and compute the verdict.  Idempotent: later calls return
  // the same result, so a driver can call it and then print reports.
  const RunResult& finish();
  bool finished() const;

  // Call finish() first (implicitly), then render once and cache, so that
  // a caller asking first for the length and then for the bytes gets the
  // very same text.
  const std::string& text_report();
  const std::string& json_report();

 private:
  RunCounts counts() const noexcept;
  void read_dsos(Sample& s);  // under mu_

  const RunParams params_;
  NativeStatsSource* const source_;
  std::unique_ptr<ProcessProbe> probe_;
  DsoStatsSource* const dsos_;
  const std::chrono::steady_clock::time_point t0_;
  const int64_t started_unix_ms_;
  ProcessFigures proc0_;

  LatencyHistogram latency_;
  std::atomic<int64_t> queries_{0}, bytes_in_{0}, bytes_out_{0}, errors_{0};

  mutable std::mutex mu_;  // guards everything below
  std::vector<Sample> samples_;
  TracerFacts tracer_;  // what the samples learnt about the tracer and its DSOs
  Startup startup_;
  std::vector<std::string> failures_;
  bool interrupted_ = false;
  std::string interrupt_cause_;
  std::optional<ConfirmedRun> confirms_;
  std::optional<RunResult> result_;
  std::string text_, json_;
};

}  // namespace dalmon
