// Team: threads kept for the whole run, so a timed run never pays for
// creating a thread, or for the DAL meeting a new thread (the Go runtime
// binds an M to each C thread on its first call into Go).
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace floorbench {

class Team {
 public:
  // A team of `size` threads: the caller's, and size - 1 kept waiting.
  explicit Team(int size) {
    for (int t = 1; t < size; ++t) helpers_.emplace_back([this, t] { serve(t); });
  }
  ~Team() {
    {
      std::lock_guard lock(m_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& h : helpers_) h.join();
  }
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  // Runs body(t) for t = 0 .. k-1 at once (0 on the calling thread) and
  // returns the wall time from the start until the last one finished.
  std::chrono::nanoseconds run(int k, const std::function<void(int)>& body) {
    {
      std::lock_guard lock(m_);
      body_ = &body;
      active_ = k;
      pending_ = k - 1;
      ++generation_;
    }
    auto t0 = std::chrono::steady_clock::now();
    wake_.notify_all();
    body(0);
    std::unique_lock lock(m_);
    done_.wait(lock, [this] { return pending_ == 0; });
    return std::chrono::steady_clock::now() - t0;
  }

 private:
  void serve(int t) {
    unsigned long seen = 0;
    for (;;) {
      std::unique_lock lock(m_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (t >= active_) continue;
      const auto* body = body_;
      lock.unlock();
      (*body)(t);
      lock.lock();
      if (--pending_ == 0) done_.notify_one();
    }
  }

  std::mutex m_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* body_ = nullptr;
  int active_ = 0, pending_ = 0;
  unsigned long generation_ = 0;
  bool stop_ = false;
  std::vector<std::thread> helpers_;
};

}  // namespace floorbench
