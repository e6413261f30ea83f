// buffer_registry.hpp (internal) -- the live set of mode (a) buffers.
//
// Every buffer dalshim_query() hands out is malloc()ed (so mallinfo2()
// accounts for it) and registered here with its size.  dalshim_free() and
// dalshim_buffer_size() accept only registered pointers, so a double free or
// a foreign pointer is reported instead of corrupting the heap.  The set is
// sharded by pointer hash, each shard behind its own mutex.  Each shard also
// remembers its last kFreedMemory freed pointers to tell a double free from
// a foreign pointer (approximate: older frees read as foreign, and an
// address malloc() has reused is live again).
#pragma once

#include <cstddef>
#include <cstdint>

namespace dalshim::detail {

class BufferRegistry {
 public:
  static BufferRegistry& instance() noexcept;

  // malloc(n) (at least 1 byte); nullptr if out of memory.  Not registered.
  static void* allocate(size_t n) noexcept;
  // Register p (from allocate) as live with size n.
  void add(void* p, size_t n);
  // 0 if p was live (and is now freed), else DALSHIM_E_DOUBLE_FREE or
  // DALSHIM_E_FOREIGN_POINTER (p untouched).
  int32_t release(void* p);
  // Size of a live buffer, else a negative code as for release().
  int64_t size(const void* p);

  int64_t live() const noexcept;
  int64_t live_bytes() const noexcept;
};

}  // namespace dalshim::detail
