#include "worker.hpp"

#include <cstdio>

#include "answer_check.hpp"
#include "dalshim/pending.hpp"
#include "workload_loop.hpp"

namespace dalstress {

std::string hex_prefix(const uint8_t* p, size_t n, size_t max) {
  std::string s;
  char b[4];
  for (size_t i = 0; i < n && i < max; ++i) {
    std::snprintf(b, sizeof b, "%02x", p[i]);
    if (i) s += ' ';
    s += b;
  }
  if (n > max) s += " ...";
  return s;
}

// Slow path of IntoLoop: anything but the expected 34 bytes.
void QueryLoop::check_into(int64_t r) {
  const size_t want = shared_.expected.size();
  if (r >= 0 && static_cast<uint64_t>(r) <= buf_.size() &&
      same_answer(buf_.data(), static_cast<size_t>(r), shared_.expected.data(), want, nullptr)) {
    ++answered_;  // the same value in other bytes (an integer's width)
    bytes_out_ += r;
    return;
  }
  ++errors_;
  if (r < 0) {
    shared_.error(true, "dalshim_query_into failed: code " + std::to_string(r) + ": " + dalshim_last_error());
    return;
  }
  ++answered_;
  bytes_out_ += r;
  if (static_cast<size_t>(r) > buf_.size()) {
    // The request ran; its answer is pending on this thread.  Take it, so
    // nothing stays behind, and report what it was.
    std::vector<uint8_t> big;
    int64_t t = dalshim::take_pending_into(big, r);
    shared_.error(
        false, "wrong answer: " + std::to_string(r) + " bytes (buffer " + std::to_string(buf_.size()) + "), taken: " +
                   (t == r ? hex_prefix(big.data(), big.size()) : "take_pending returned " + std::to_string(t)));
    return;
  }
  std::string what = "wrong answer: " + std::to_string(r) + " bytes, expected " + std::to_string(want) + ": " +
                     hex_prefix(buf_.data(), static_cast<size_t>(r));
  shared_.error(false, std::move(what));
}

std::unique_ptr<QueryLoop> make_query_loop(const Options& o, Shared& s, int64_t h, uint64_t seed, int thread) {
  if (s.workload != nullptr) {
    const int64_t k = o.latency_every;
    if (o.mode == Mode::Into) {
      if (o.via == Via::Direct) return std::make_unique<WorkloadIntoLoop<DirectCaller>>(s, h, k, seed, thread);
      return std::make_unique<WorkloadIntoLoop<FfiCaller>>(s, h, k, seed, thread);
    }
    if (o.via == Via::Direct) return std::make_unique<WorkloadAllocLoop<DirectCaller>>(s, h, k, seed, thread);
    return std::make_unique<WorkloadAllocLoop<FfiCaller>>(s, h, k, seed, thread);
  }
  if (o.mode == Mode::Into) {
    if (o.via == Via::Direct) return std::make_unique<IntoLoop<DirectCaller>>(s, h, o.latency_every, seed);
    return std::make_unique<IntoLoop<FfiCaller>>(s, h, o.latency_every, seed);
  }
  if (o.via == Via::Direct) return std::make_unique<AllocLoop<DirectCaller>>(s, h, o.latency_every, seed);
  return std::make_unique<AllocLoop<FfiCaller>>(s, h, o.latency_every, seed);
}

}  // namespace dalstress
