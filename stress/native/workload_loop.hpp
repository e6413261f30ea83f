// workload_loop.hpp -- the query loops of a workload whose requests change
// per query (rows, write, mixed: docs/workloads.md).  A constant workload
// (reference) keeps IntoLoop/AllocLoop of worker.hpp: bytes encoded once,
// nothing expanded per query.
//
// Per query: expand thread t's query n (request and expected answer, into
// buffers reused across queries), rebind the request (a plain store, also
// for libffi: its argument array points at the bound fields), call, and
// check the answer -- equal bytes at once, else compared as values
// (answer_check.hpp), which reports the first differing path with the
// request id.  A response larger than the buffer is taken with
// dalshim_take_pending (never left pending), checked like any other, and
// the buffer grows so the next one fits.
#pragma once

#include <cstring>
#include <vector>

#include "answer_check.hpp"
#include "worker.hpp"
#include "workload.hpp"

namespace dalstress {

class WorkloadLoop : public QueryLoop {
 protected:
  WorkloadLoop(Shared& s, int64_t latency_every, uint64_t seed, int thread)
      : QueryLoop(s, latency_every, seed), w_(*s.workload), t_(thread), env_(static_cast<size_t>(w_.slots())) {}

  // Expand the next query into q_; false (error recorded, run stopped) if
  // the workload cannot be expanded for it.
  bool next() {
    try {
      w_.expand(t_, n_, env_.data(), q_);
    } catch (const WorkloadError& e) {
      expansion_failed(e);
      return false;
    }
    ++n_;
    return true;
  }
  // The slow path of the into loop: r is not the expected bytes in buf_.
  // Returns true if the answer is right after all (integer widths), with
  // the counters updated either way; sets *grow if buf_ must be rebound.
  bool check_into_answer(int64_t r, bool* grow);
  // The alloc loop's check of a shim buffer p of size bytes.
  bool check_alloc_answer(const void* p, int64_t size);
  std::string where() const;  // "request <id> (thread t, query n, step s)"

  const Workload& w_;
  int t_;
  int64_t n_ = 0;
  std::vector<int64_t> env_;
  ExpandedQuery q_;
  std::vector<uint8_t> big_;

 private:
  void expansion_failed(const WorkloadError& e);
};

template <class Caller>
class WorkloadIntoLoop final : public WorkloadLoop {
 public:
  WorkloadIntoLoop(Shared& s, int64_t h, int64_t latency_every, uint64_t seed, int thread)
      : WorkloadLoop(s, latency_every, seed, thread), caller_(CallArgs{h, nullptr, 0, buf_.data(), buf_.size()}) {}

  int64_t run(int64_t n) override {
    for (int64_t i = 0; i < n; ++i) {
      if (!next()) return i;
      caller_.set_request(q_.request.data(), q_.request.size());
      const size_t want = q_.expect.size();
      uint8_t* buf = buf_.data();
      // Poison the answer's first and last byte: a call that reports
      // success without writing cannot pass for a right answer.
      if (want > 0 && want <= buf_.size()) {
        buf[0] = static_cast<uint8_t>(~q_.expect[0]);
        buf[want - 1] = static_cast<uint8_t>(~q_.expect[want - 1]);
      }
      int64_t r;
      if (--countdown_ == 0) {
        const int64_t t0 = now_ns();
        r = caller_.query_into();
        lat_.push_back(now_ns() - t0);
        countdown_ = next_gap();
      } else {
        r = caller_.query_into();
      }
      bytes_in_ += static_cast<int64_t>(q_.request.size());
      if (r == static_cast<int64_t>(want) && std::memcmp(buf, q_.expect.data(), want) == 0) [[likely]] {
        ++answered_;
        bytes_out_ += r;
        continue;
      }
      bool grow = false;
      const bool ok = check_into_answer(r, &grow);
      if (grow) caller_.set_buffer(buf_.data(), buf_.size());
      if (!ok && shared_.stop.load(std::memory_order_relaxed)) return i + 1;
    }
    return n;
  }

 private:
  Caller caller_;
};

template <class Caller>
class WorkloadAllocLoop final : public WorkloadLoop {
 public:
  WorkloadAllocLoop(Shared& s, int64_t h, int64_t latency_every, uint64_t seed, int thread)
      : WorkloadLoop(s, latency_every, seed, thread), caller_(CallArgs{h, nullptr, 0, nullptr, 0}) {}

  int64_t run(int64_t n) override {
    for (int64_t i = 0; i < n; ++i) {
      if (!next()) return i;
      caller_.set_request(q_.request.data(), q_.request.size());
      // One round trip in this mode is query + size + free: all three are timed.
      const bool timed = --countdown_ == 0;
      const int64_t t0 = timed ? now_ns() : 0;
      void* p = caller_.query();
      const int64_t size = p ? caller_.buffer_size(p) : 0;
      const bool ok = check_alloc_answer(p, size);
      const int32_t fr = p ? caller_.free(p) : 0;
      if (timed) {
        lat_.push_back(now_ns() - t0);
        countdown_ = next_gap();
      }
      bytes_in_ += static_cast<int64_t>(q_.request.size());
      if (fr != DALSHIM_OK) {
        if (ok) ++errors_;
        shared_.error(
            true, "dalshim_free failed for " + where() + ": code " + std::to_string(fr) + ": " + dalshim_last_error());
      }
      if ((!ok || fr != DALSHIM_OK) && shared_.stop.load(std::memory_order_relaxed)) return i + 1;
    }
    return n;
  }

 private:
  Caller caller_;
};

}  // namespace dalstress
