#include "buffer_registry.hpp"

#include <atomic>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "dalshim.h"

namespace dalshim::detail {
namespace {

constexpr int kShards = 16;
constexpr size_t kFreedMemory = 1024;  // per shard

struct alignas(64) Shard {
  std::mutex mu;
  std::unordered_map<const void*, size_t> live;
  std::unordered_set<const void*> freed;
  const void* ring[kFreedMemory] = {};
  size_t ring_pos = 0;
};

// Leaked on purpose (never destroyed), so that buffers freed from static
// destructors or late threads at exit still find their registry.
Shard* shards() {
  static Shard* s = new Shard[kShards];
  return s;
}

Shard& shard_of(const void* p) {
  // malloc alignment makes the low 4 bits zero; mix the rest.
  auto x = reinterpret_cast<uintptr_t>(p) >> 4;
  x ^= x >> 7;
  return shards()[x % kShards];
}

std::atomic<int64_t> g_live{0};
std::atomic<int64_t> g_live_bytes{0};

}  // namespace

BufferRegistry& BufferRegistry::instance() noexcept {
  static BufferRegistry r;
  return r;
}

void* BufferRegistry::allocate(size_t n) noexcept { return std::malloc(n == 0 ? 1 : n); }

void BufferRegistry::add(void* p, size_t n) {
  Shard& s = shard_of(p);
  {
    std::lock_guard lk(s.mu);
    s.live.emplace(p, n);
    s.freed.erase(p);  // malloc reused a freed address: it is live again
  }
  g_live.fetch_add(1, std::memory_order_relaxed);
  g_live_bytes.fetch_add(static_cast<int64_t>(n), std::memory_order_relaxed);
}

int32_t BufferRegistry::release(void* p) {
  Shard& s = shard_of(p);
  size_t n;
  {
    std::lock_guard lk(s.mu);
    auto it = s.live.find(p);
    if (it == s.live.end()) {
      return s.freed.count(p) != 0 ? DALSHIM_E_DOUBLE_FREE : DALSHIM_E_FOREIGN_POINTER;
    }
    n = it->second;
    s.live.erase(it);
    if (const void* old = s.ring[s.ring_pos]; old != nullptr) s.freed.erase(old);
    s.ring[s.ring_pos] = p;
    s.ring_pos = (s.ring_pos + 1) % kFreedMemory;
    s.freed.insert(p);
    // Free under the lock: a concurrent add() of the same address (malloc
    // reusing it) cannot then interleave with our bookkeeping.
    std::free(p);
  }
  g_live.fetch_sub(1, std::memory_order_relaxed);
  g_live_bytes.fetch_sub(static_cast<int64_t>(n), std::memory_order_relaxed);
  return DALSHIM_OK;
}

int64_t BufferRegistry::size(const void* p) {
  Shard& s = shard_of(p);
  std::lock_guard lk(s.mu);
  auto it = s.live.find(p);
  if (it != s.live.end()) return static_cast<int64_t>(it->second);
  return s.freed.count(p) != 0 ? DALSHIM_E_DOUBLE_FREE : DALSHIM_E_FOREIGN_POINTER;
}

int64_t BufferRegistry::live() const noexcept { return g_live.load(std::memory_order_relaxed); }
int64_t BufferRegistry::live_bytes() const noexcept { return g_live_bytes.load(std::memory_order_relaxed); }

}  // namespace dalshim::detail
