// dalshim/bytes.hpp -- the byte vector that response buffers are made of.
//
// std::vector<uint8_t>::resize() value-initialises (zeroes) every byte it
// adds.  A response buffer is resized to its full capacity before each
// mode (b) call and back to the response's length after it, so with the
// standard allocator every query paid a memset of up to the scratch size
// (64 KiB in the addon: 1-2 us on a 30 us builder round trip) for bytes the
// DAL overwrites.  Bytes default-initialises instead: growing within the
// capacity writes nothing.  Everything else is std::vector.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace dalshim {

// std::allocator whose value-less construct() default-initialises (for
// uint8_t: leaves the byte as it was), and forwards every other construct().
template <class T>
class DefaultInitAllocator : public std::allocator<T> {
 public:
  using std::allocator<T>::allocator;
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };

  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    std::allocator_traits<std::allocator<T>>::construct(static_cast<std::allocator<T>&>(*this), p,
                                                        std::forward<Args>(args)...);
  }
};

using Bytes = std::vector<uint8_t, DefaultInitAllocator<uint8_t>>;

}  // namespace dalshim
