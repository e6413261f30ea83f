#include "accounting.hpp"

#include <atomic>

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

std::atomic<int64_t> g_open{0};
std::atomic<int64_t> g_max_issued{0};

}  // namespace

void count_call(uint64_t req_bytes) noexcept {
  Slot& s = my_slot();
  s.v[kCalls].fetch_add(1, std::memory_order_relaxed);
  s.v[kRequestBytes].fetch_add(static_cast<int64_t>(req_bytes), std::memory_order_relaxed);
}

void count_response_bytes(int64_t n) noexcept { my_slot().v[kResponseBytes].fetch_add(n, std::memory_order_relaxed); }

void count_error() noexcept { my_slot().v[kErrors].fetch_add(1, std::memory_order_relaxed); }

int64_t counter(Counter c) noexcept {
  int64_t sum = 0;
  for (auto& s : g_slots) sum += s.v[c].load(std::memory_order_relaxed);
  return sum;
}

void handle_opened(int64_t h) noexcept {
  g_open.fetch_add(1, std::memory_order_relaxed);
  int64_t cur = g_max_issued.load(std::memory_order_relaxed);
  while (h > cur && !g_max_issued.compare_exchange_weak(cur, h, std::memory_order_relaxed)) {}
}

void handle_closed() noexcept { g_open.fetch_sub(1, std::memory_order_relaxed); }

bool handle_was_closed(int64_t h) noexcept { return h > 0 && h <= g_max_issued.load(std::memory_order_relaxed); }

int64_t handles_open() noexcept { return g_open.load(std::memory_order_relaxed); }

}  // namespace dalshim::detail
