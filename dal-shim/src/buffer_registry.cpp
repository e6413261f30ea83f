#include "buffer_registry.hpp"

#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "dalshim.h"

namespace dalshim::detail {

struct alignas(64) BufferRegistry::Shard {
  mutable std::mutex mu;
  std::unordered_map<const void*, size_t> live;
  std::vector<const void*> ring;  // freed pointers, oldest overwritten first
  size_t ring_pos = 0;
};

BufferRegistry::BufferRegistry(size_t shards, size_t freed_per_shard, void (*deallocate)(void*))
    : shards_(new Shard[shards == 0 ? 1 : shards]),
      shard_count_(shards == 0 ? 1 : shards),
      ring_size_(freed_per_shard == 0 ? 1 : freed_per_shard),
      deallocate_(deallocate != nullptr ? deallocate : std::free) {
  for (size_t i = 0; i < shard_count_; ++i) shards_[i].ring.assign(ring_size_, nullptr);
}

BufferRegistry::~BufferRegistry() = default;

BufferRegistry& BufferRegistry::process() noexcept {
  static BufferRegistry* r = new BufferRegistry();  // leaked on purpose, see the header
  return *r;
}

BufferRegistry::Shard& BufferRegistry::shard_of(const void* p) const noexcept {
  // malloc alignment makes the low 4 bits zero; mix the rest.
  auto x = reinterpret_cast<uintptr_t>(p) >> 4;
  x ^= x >> 7;
  return shards_[x % shard_count_];
}

int32_t BufferRegistry::not_live_code(const Shard& s, const void* p) const noexcept {
  for (const void* q : s.ring)
    if (q == p) return DALSHIM_E_DOUBLE_FREE;
  return DALSHIM_E_FOREIGN_POINTER;
}

bool BufferRegistry::add(void* p, size_t n) noexcept {
  Shard& s = shard_of(p);
  try {
    std::lock_guard lk(s.mu);
    s.live.emplace(p, n);
  } catch (...) {
    return false;
  }
  live_.fetch_add(1, std::memory_order_relaxed);
  live_bytes_.fetch_add(static_cast<int64_t>(n), std::memory_order_relaxed);
  return true;
}

int64_t BufferRegistry::release(void* p) noexcept {
  Shard& s = shard_of(p);
  size_t n;
  {
    std::lock_guard lk(s.mu);
    auto it = s.live.find(p);
    if (it == s.live.end()) return not_live_code(s, p);
    n = it->second;
    s.live.erase(it);
    s.ring[s.ring_pos] = p;
    s.ring_pos = (s.ring_pos + 1) % ring_size_;
    // Deallocate under the lock: a concurrent add() of the same address
    // (malloc reusing it) cannot then interleave with our bookkeeping.
    deallocate_(p);
  }
  live_.fetch_sub(1, std::memory_order_relaxed);
  live_bytes_.fetch_sub(static_cast<int64_t>(n), std::memory_order_relaxed);
  return static_cast<int64_t>(n);
}

int64_t BufferRegistry::size(const void* p) const noexcept {
  Shard& s = shard_of(p);
  std::lock_guard lk(s.mu);
  auto it = s.live.find(p);
  if (it != s.live.end()) return static_cast<int64_t>(it->second);
  return not_live_code(s, p);
}

}  // namespace dalshim::detail
