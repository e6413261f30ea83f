// run_registry.hpp -- run ids for the C ABI.
//
// FFI callers get integer ids, never pointers (a stale pointer from JS would
// be a crash; a stale id is DALMON_E_RUN).  Runs are held by shared_ptr so a
// worker thread still recording latencies when the controller calls
// dalmon_end keeps its Monitor alive until its call returns.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <unordered_map>

#include "monitor.hpp"

namespace dalmon {

class RunRegistry {
 public:
  static RunRegistry &instance();

  int64_t add(std::shared_ptr<Monitor> m);
  std::shared_ptr<Monitor> find(int64_t id) const;  // nullptr if unknown
  bool remove(int64_t id);

 private:
  // Readers (every hot-path call) share the lock; only start/end write.
  mutable std::shared_mutex mu_;
  std::unordered_map<int64_t, std::shared_ptr<Monitor>> runs_;
  std::atomic<int64_t> next_{1};
};

}  // namespace dalmon
