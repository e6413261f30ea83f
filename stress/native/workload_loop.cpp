#include "workload_loop.hpp"

#include "dalshim.h"
#include "dalshim/pending.hpp"

namespace dalstress {

namespace {
// The into buffer grows to fit a large answer, up to this; beyond it each
// such answer is taken from pending (still checked, just one more call).
constexpr size_t kMaxIntoBuffer = 4 * 1024 * 1024;
}  // namespace

std::string WorkloadLoop::where() const {
  const int64_t n = n_ - 1;
  return "request " + std::to_string(q_.id) + " (thread " + std::to_string(t_) + ", query " + std::to_string(n) +
         ", step " + std::to_string(n % static_cast<int64_t>(w_.steps())) + ")";
}

void WorkloadLoop::expansion_failed(const WorkloadError& e) {
  ++errors_;
  shared_.error(true, std::string("cannot expand the next query: ") + e.what());
  shared_.stop.store(true, std::memory_order_relaxed);
}

bool WorkloadLoop::check_into_answer(int64_t r, bool* grow) {
  if (r < 0) {
    ++errors_;
    shared_.error(
        true, "dalshim_query_into failed for " + where() + ": code " + std::to_string(r) + ": " + dalshim_last_error());
    return false;
  }
  ++answered_;
  bytes_out_ += r;
  const uint8_t* answer = buf_.data();
  if (static_cast<uint64_t>(r) > buf_.size()) {
    // The request ran; its answer is pending on this thread: take it.
    const int64_t t = dalshim::take_pending_into(big_, r);
    if (t != r) {
      ++errors_;
      shared_.error(true, "dalshim_take_pending failed for " + where() + " (" + std::to_string(r) +
                              " bytes pending): returned " + std::to_string(t) + ": " + dalshim_last_error());
      return false;
    }
    answer = big_.data();
    if (static_cast<size_t>(r) <= kMaxIntoBuffer) {
      buf_.assign(big_.begin(), big_.end());  // grows; contents irrelevant
      *grow = true;
    }
  }
  std::string diff;
  if (same_answer(answer, static_cast<size_t>(r), q_.expect.data(), q_.expect.size(), &diff)) return true;
  ++errors_;
  shared_.error(false, "wrong answer to " + where() + ": " + diff);
  return false;
}

bool WorkloadLoop::check_alloc_answer(const void* p, int64_t size) {
  if (p == nullptr) {
    ++errors_;
    shared_.error(true, "dalshim_query failed for " + where() + ": code " + std::to_string(dalshim_last_error_code()) +
                            ": " + dalshim_last_error());
    return false;
  }
  ++answered_;
  if (size < 0) {
    ++errors_;
    shared_.error(true, "dalshim_buffer_size failed for " + where() + ": " + dalshim_last_error());
    return false;
  }
  bytes_out_ += size;
  const auto* got = static_cast<const uint8_t*>(p);
  if (same_answer(got, static_cast<size_t>(size), q_.expect.data(), q_.expect.size(), nullptr)) return true;
  std::string diff;
  same_answer(got, static_cast<size_t>(size), q_.expect.data(), q_.expect.size(), &diff);
  ++errors_;
  shared_.error(false, "wrong answer to " + where() + ": " + diff);
  return false;
}

}  // namespace dalstress
