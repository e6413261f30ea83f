// buffer_registry.hpp (internal) -- the live set of mode (a) buffers.
//
// Every buffer the shim hands out in mode (a) (dalshim_query,
// Database::query) is malloc()ed, so mallinfo2() accounts for it, and
// registered here with its size.  Releasing and sizing accept only
// registered pointers, so a double free or a foreign pointer is reported
// instead of corrupting the heap.
//
// The set is sharded by pointer hash, each shard behind its own mutex.
// Each shard also keeps a ring of its last freed_per_shard freed pointers,
// searched only when a pointer is not live, to tell a double free from a
// foreign pointer.  The ring is the only record of frees: an address that
// malloc reuses is live again (found in the live map first), and an
// address freed twice (reused in between) is in the ring twice, so
// overwriting its older entry cannot forget its newer free.  Frees older
// than the ring's reach read as foreign.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace dalshim::detail {

class BufferRegistry {
 public:
  // deallocate: how release() frees a buffer (std::free for the shim's
  // buffers; tests pass their own to observe and reuse addresses).
  explicit BufferRegistry(size_t shards = 16, size_t freed_per_shard = 1024, void (*deallocate)(void*) = nullptr);
  ~BufferRegistry();
  BufferRegistry(const BufferRegistry&) = delete;
  BufferRegistry& operator=(const BufferRegistry&) = delete;

  // The registry of libdalshim's mode (a) buffers.  Never destroyed, so
  // buffers freed from static destructors or late threads at exit still
  // find it.
  static BufferRegistry& process() noexcept;

  // Register p as live with size n.  False (p not registered) if the
  // bookkeeping cannot allocate.
  bool add(void* p, size_t n) noexcept;
  // Unregister and deallocate p: its size if it was live, else
  // DALSHIM_E_DOUBLE_FREE or DALSHIM_E_FOREIGN_POINTER (p untouched).
  int64_t release(void* p) noexcept;
  // Size of a live buffer, else a negative code as for release().
  int64_t size(const void* p) const noexcept;

  int64_t live() const noexcept { return live_.load(std::memory_order_relaxed); }
  int64_t live_bytes() const noexcept { return live_bytes_.load(std::memory_order_relaxed); }

 private:
  struct Shard;
  Shard& shard_of(const void* p) const noexcept;
  int32_t not_live_code(const Shard& s, const void* p) const noexcept;

  std::unique_ptr<Shard[]> shards_;
  size_t shard_count_;
  size_t ring_size_;
  void (*deallocate_)(void*);
  std::atomic<int64_t> live_{0};
  std::atomic<int64_t> live_bytes_{0};
};

}  // namespace dalshim::detail
