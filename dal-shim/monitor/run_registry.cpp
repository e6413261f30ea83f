#include "run_registry.hpp"

#include <thread>

namespace dalmon {

RunRegistry& RunRegistry::instance() {
  // Leaked on purpose: a JS runtime may still call in from a finalizer or a
  // worker while static destructors run at exit.
  static RunRegistry* r = new RunRegistry;
  return *r;
}

// id = generation * kSlots + slot + 1: the slot is found by arithmetic, and
// each (slot, generation) pair is used once, so an id is never reused.
bool RunRegistry::slot_of(int64_t id, size_t& slot) noexcept {
  if (id <= 0) return false;
  slot = static_cast<size_t>((id - 1) % kSlots);
  return true;
}

RunRegistry::RunLease RunRegistry::find(int64_t id) noexcept {
  size_t i = 0;
  if (!slot_of(id, i)) return RunLease(nullptr, nullptr);
  Slot& s = slots_[i];
  s.users.fetch_add(1, std::memory_order_seq_cst);
  if (s.id.load(std::memory_order_seq_cst) != id) {
    s.users.fetch_sub(1, std::memory_order_release);
    return RunLease(nullptr, nullptr);
  }
  return RunLease(&s, s.monitor.load(std::memory_order_acquire));
}

int64_t RunRegistry::add(std::unique_ptr<Monitor> m) {
  std::lock_guard lk(mu_);
  for (size_t i = 0; i < slots_.size(); ++i) {
    Slot& s = slots_[i];
    if (s.monitor.load(std::memory_order_relaxed) != nullptr) continue;
    const int64_t id = s.generation++ * kSlots + static_cast<int64_t>(i) + 1;
    s.monitor.store(m.release(), std::memory_order_release);
    s.id.store(id, std::memory_order_seq_cst);  // published last: a lookup that sees it sees the monitor
    return id;
  }
  return 0;
}

bool RunRegistry::remove(int64_t id) {
  size_t i = 0;
  if (!slot_of(id, i)) return false;
  std::lock_guard lk(mu_);
  Slot& s = slots_[i];
  if (s.id.load(std::memory_order_relaxed) != id) return false;
  s.id.store(0, std::memory_order_seq_cst);  // no new lease from here on
  // Calls in flight are short (a batch of latencies, a report copy); wait for them.
  while (s.users.load(std::memory_order_seq_cst) != 0) std::this_thread::yield();
  delete s.monitor.exchange(nullptr, std::memory_order_acq_rel);
  return true;
}

}  // namespace dalmon
