#include "accounting.hpp"

#include <mutex>
#include <unordered_set>

namespace dalshim::detail {
namespace {

constexpr int kShards = 16;
struct alignas(64) Slot {
  std::atomic<int64_t> v[kCounterCount];
};
Slot g_slots[kShards];
std::atomic<unsigned> g_next_slot{0};

Slot& my_slot() noexcept {
  thread_local Slot* s = &g_slots[g_next_slot.fetch_add(1, std::memory_order_relaxed) % kShards];
  return *s;
}

std::mutex g_handles_mu;
std::unordered_set<int64_t>* g_closed = nullptr;  // leaked on purpose: usable during exit
std::atomic<int64_t> g_open{0};

}  // namespace

void count(Counter c, int64_t delta) noexcept {
  my_slot().v[c].fetch_add(delta, std::memory_order_relaxed);
}

int64_t counter(Counter c) noexcept {
  int64_t sum = 0;
  for (auto& s : g_slots) sum += s.v[c].load(std::memory_order_relaxed);
  return sum;
}

void handle_opened(int64_t) { g_open.fetch_add(1, std::memory_order_relaxed); }

void handle_closed(int64_t h) {
  g_open.fetch_sub(1, std::memory_order_relaxed);
  std::lock_guard lk(g_handles_mu);
  if (g_closed == nullptr) g_closed = new std::unordered_set<int64_t>();
  g_closed->insert(h);
}

bool handle_was_closed(int64_t h) {
  std::lock_guard lk(g_handles_mu);
  return g_closed != nullptr && g_closed->count(h) != 0;
}

int64_t handles_open() noexcept { return g_open.load(std::memory_order_relaxed); }

}  // namespace dalshim::detail
