// worker.hpp -- the query loop of one thread.
//
// LATENCY SAMPLING.  Timing every query costs two clock reads (~40 ns on a
// ~1-2 us round trip), so by default one query in K (K = --latency-every,
// default 16) is timed on its own, start to end of that single call.  The
// gap between timed queries is drawn uniformly from 1..2K-1 (mean K) so the
// sampling cannot alias with anything periodic in the DAL (statement cache,
// pools, GC pacing).  Every recorded value is the latency of exactly one
// query, so the percentiles are per-query percentiles; --latency-every 1
// times every query.
//
// ANSWER CHECK.  Every answer is checked: the call must succeed and the
// answer must be the expected value -- for a constant workload (reference:
// 34 bytes) the pre-encoded bytes, compared with memcmp; a difference in
// bytes alone is then compared as values (answer_check.hpp).  In "into"
// mode the first and last byte of the reused buffer are poisoned before each
// call, so a call that reports success without writing is caught too.  A
// response larger than the buffer is taken with dalshim_take_pending (never
// left pending) and counted as wrong.  Workloads whose queries change per
// query run the loops of workload_loop.hpp instead.
#pragma once

#include <time.h>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "caller.hpp"
#include "dalmonitor.h"
#include "dalshim.h"
#include "options.hpp"

namespace dalstress {

class Workload;

inline int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// State shared by all workers of a run.
struct Shared {
  int64_t run = 0;
  std::vector<uint8_t> request;        // a constant workload's one request, encoded once
  std::vector<uint8_t> expected;       // and its answer
  const Workload* workload = nullptr;  // set instead when queries change (workload_loop.hpp)
  int64_t max_errors = 1000;
  std::atomic<bool> stop{false};

  std::mutex mu;
  std::vector<std::string> first_errors;  // the first few, verbatim
  int64_t failed_calls = 0, wrong_answers = 0;

  void error(bool failed_call, std::string msg) {
    std::lock_guard lk(mu);
    (failed_call ? failed_calls : wrong_answers)++;
    if (first_errors.size() < 10) first_errors.push_back(std::move(msg));
    if (failed_calls + wrong_answers >= max_errors) stop.store(true, std::memory_order_relaxed);
  }
};

std::string hex_prefix(const uint8_t* p, size_t n, size_t max = 40);

// One thread's query loop: sends the reference request, checks each answer,
// and records latency (named apart from the DAL's internal/engine package).
class QueryLoop {
 public:
  virtual ~QueryLoop() = default;
  // Issue n queries; check each answer.  Returns the number issued (n, or
  // fewer if the run was stopped).
  virtual int64_t run(int64_t n) = 0;
  // Hand the counts and latencies gathered since the last flush to the monitor.
  void flush() {
    if (answered_ || bytes_in_ || errors_) dalmon_count(shared_.run, answered_, bytes_in_, bytes_out_, errors_);
    if (!lat_.empty()) dalmon_record_latencies_ns(shared_.run, lat_.data(), lat_.size());
    answered_ = bytes_in_ = bytes_out_ = errors_ = 0;
    lat_.clear();
  }

 protected:
  QueryLoop(Shared& s, int64_t latency_every, uint64_t seed)
      : shared_(s), buf_(4096), span_(2 * latency_every - 1), rng_(seed | 1) {
    countdown_ = next_gap();
    lat_.reserve(4096);
  }
  int64_t next_gap() {
    // xorshift64: cheap, good enough to spread the timed queries.
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    return 1 + static_cast<int64_t>(rng_ % static_cast<uint64_t>(span_));
  }
  void check_into(int64_t r);

  Shared& shared_;
  std::vector<uint8_t> buf_;
  std::vector<int64_t> lat_;
  int64_t span_;
  uint64_t rng_;
  int64_t countdown_;
  int64_t answered_ = 0, bytes_in_ = 0, bytes_out_ = 0, errors_ = 0;
};

template <class Caller>
class IntoLoop final : public QueryLoop {
 public:
  IntoLoop(Shared& s, int64_t h, int64_t latency_every, uint64_t seed)
      : QueryLoop(s, latency_every, seed), caller_(args(s, h)) {}

  int64_t run(int64_t n) override {
    const size_t want = shared_.expected.size();
    const uint8_t* exp = shared_.expected.data();
    uint8_t* buf = buf_.data();
    const int64_t req_len = static_cast<int64_t>(shared_.request.size());
    for (int64_t i = 0; i < n; ++i) {
      buf[0] = static_cast<uint8_t>(~exp[0]);
      buf[want - 1] = static_cast<uint8_t>(~exp[want - 1]);
      int64_t r;
      if (--countdown_ == 0) {
        int64_t t0 = now_ns();
        r = caller_.query_into();
        lat_.push_back(now_ns() - t0);
        countdown_ = next_gap();
      } else {
        r = caller_.query_into();
      }
      bytes_in_ += req_len;
      if (r == static_cast<int64_t>(want) && std::memcmp(buf, exp, want) == 0) [[likely]] {
        ++answered_;
        bytes_out_ += r;
      } else {
        check_into(r);
        if (shared_.stop.load(std::memory_order_relaxed)) return i + 1;
      }
    }
    return n;
  }

 private:
  CallArgs args(Shared& s, int64_t h) {
    return CallArgs{h, s.request.data(), s.request.size(), buf_.data(), buf_.size()};
  }
  Caller caller_;
};

template <class Caller>
class AllocLoop final : public QueryLoop {
 public:
  AllocLoop(Shared& s, int64_t h, int64_t latency_every, uint64_t seed)
      : QueryLoop(s, latency_every, seed), caller_(CallArgs{h, s.request.data(), s.request.size(), nullptr, 0}) {}

  int64_t run(int64_t n) override {
    const size_t want = shared_.expected.size();
    const uint8_t* exp = shared_.expected.data();
    const int64_t req_len = static_cast<int64_t>(shared_.request.size());
    for (int64_t i = 0; i < n; ++i) {
      // One round trip in this mode is query + size + free: all three are timed.
      bool timed = --countdown_ == 0;
      int64_t t0 = timed ? now_ns() : 0;
      void* p = caller_.query();
      int64_t size = p ? caller_.buffer_size(p) : 0;
      bool ok = p && size == static_cast<int64_t>(want) && std::memcmp(p, exp, want) == 0;
      std::string bad;
      if (p && !ok)
        bad = size < 0 ? "dalshim_buffer_size failed: " + std::string(dalshim_last_error())
                       : "wrong answer: " + std::to_string(size) + " bytes, " +
                             hex_prefix(static_cast<const uint8_t*>(p), static_cast<size_t>(size));
      int32_t fr = p ? caller_.free(p) : 0;
      if (timed) {
        lat_.push_back(now_ns() - t0);
        countdown_ = next_gap();
      }
      bytes_in_ += req_len;
      if (ok && fr == DALSHIM_OK) [[likely]] {
        ++answered_;
        bytes_out_ += size;
        continue;
      }
      ++errors_;
      if (!p) {
        shared_.error(true, "dalshim_query failed: code " + std::to_string(dalshim_last_error_code()) + ": " +
                                dalshim_last_error());
      } else {
        ++answered_;
        if (size > 0) bytes_out_ += size;
        if (!ok) shared_.error(false, bad);
        if (fr != DALSHIM_OK)
          shared_.error(true, "dalshim_free failed: code " + std::to_string(fr) + ": " + dalshim_last_error());
      }
      if (shared_.stop.load(std::memory_order_relaxed)) return i + 1;
    }
    return n;
  }

 private:
  Caller caller_;
};

// The loop of thread `thread` (0-based: the workloads' variable t).
std::unique_ptr<QueryLoop> make_query_loop(const Options& o, Shared& s, int64_t handle, uint64_t seed, int thread);

}  // namespace dalstress
