// run_registry.hpp -- run ids for the C ABI, looked up without a lock.
//
// FFI callers get integer ids, never pointers (a stale pointer from JS would
// be a crash; a stale id is DALMON_E_RUN).  The hot-path calls
// (dalmon_record_latency_ns, dalmon_record_latencies_ns, dalmon_count) come
// from every driver thread once per batch, so looking an id up takes no
// lock: runs live in a fixed array of slots, an id names its slot, and a
// lookup is two atomic adds and a load.
//
// Lifetime: a lookup holds a RunLease, which announces itself in the slot's
// `users` counter before it checks the id.  remove() clears the id first and
// then waits until `users` drops to zero before it deletes the Monitor, so a
// worker still recording when the controller calls dalmon_end finishes its
// call on a live Monitor, and any later call sees the cleared id.  (The
// counter and the id are sequentially consistent: whichever of "announce,
// then check the id" and "clear the id, then read the counter" comes second
// sees the other.)
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "monitor.hpp"

namespace dalmon {

class RunRegistry {
  struct alignas(64) Slot {      // one cache line each: runs do not share counters
    std::atomic<int64_t> id{0};  // 0 = free (or being removed)
    std::atomic<Monitor*> monitor{nullptr};
    std::atomic<int64_t> users{0};  // RunLeases alive on this slot
    int64_t generation = 0;         // times the slot was used; guarded by mu_
  };

 public:
  // Runs alive at once.  A driver has one; tests and a host running several
  // drivers a few.  dalmon_start beyond it is DALMON_E_LIMIT.
  static constexpr int kSlots = 64;

  static RunRegistry& instance();

  // Access to one run for the length of one C call.
  class RunLease {
   public:
    RunLease(RunLease&& o) noexcept : slot_(o.slot_), monitor_(o.monitor_) { o.slot_ = nullptr; }
    RunLease(const RunLease&) = delete;
    RunLease& operator=(const RunLease&) = delete;
    RunLease& operator=(RunLease&&) = delete;
    ~RunLease() {
      if (slot_) slot_->users.fetch_sub(1, std::memory_order_release);
    }
    explicit operator bool() const noexcept { return monitor_ != nullptr; }
    Monitor* operator->() const noexcept { return monitor_; }

   private:
    friend class RunRegistry;
    RunLease(Slot* slot, Monitor* m) noexcept : slot_(slot), monitor_(m) {}
    Slot* slot_;        // nullptr: holds nothing
    Monitor* monitor_;  // nullptr: unknown id
  };

  // Lock-free, any thread.  An empty lease for an unknown or ended id.
  RunLease find(int64_t id) noexcept;

  // A new id (> 0, never reused in the process) owning m, or 0 when all
  // kSlots are taken.
  int64_t add(std::unique_ptr<Monitor> m);

  // Forget the run; waits for calls still using it.  False if unknown.
  bool remove(int64_t id);

 private:
  RunRegistry() = default;
  static bool slot_of(int64_t id, size_t& slot) noexcept;

  std::array<Slot, kSlots> slots_;
  std::mutex mu_;  // add and remove only; find never takes it
};

}  // namespace dalmon
