// dalshim/pending.hpp -- the one "response too small -> take pending" step
// of ownership mode (b), header-only so that programs linked only to
// libdalshim.so (which exports just the C ABI) use the same code as the
// shim itself (src/operations.hpp instantiates it over the DAL directly).
//
// A mode (b) call (dalshim_query_into, dal_query_into) that returns n > cap
// wrote nothing, but the request WAS executed: its response is held for
// the calling thread until taken (or replaced by the next too-small call
// on that thread).  The only correct continuation is to take it into n
// bytes; re-sending the request would run a write twice.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "dalshim.h"

namespace dalshim {

// n: what the mode (b) call returned (n > the capacity it was given).
// dest(n) returns n writable bytes, or nullptr if they cannot be had (the
// response then stays pending; DALSHIM_E_NOMEM is returned).  take(p, n)
// is dal_take_pending / dalshim_take_pending.  Returns what take returned:
// n on success, or a negative code.  *where is set to dest's pointer.
template <class Dest, class Take>
int64_t take_pending_response(int64_t n, Dest&& dest, Take&& take, void** where) noexcept {
  void* p = dest(static_cast<size_t>(n));
  *where = p;
  if (p == nullptr) return DALSHIM_E_NOMEM;
  return take(p, static_cast<size_t>(n));
}

// A dest for take_pending_response: v resized to n bytes, or nullptr.  Any
// byte vector (dalshim::Bytes skips zeroing what the DAL overwrites).
template <class Alloc>
void* resize_for(std::vector<uint8_t, Alloc>& v, size_t n) noexcept {
  try {
    v.resize(n);
    return v.data();
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

// Over libdalshim's C ABI: take the pending response of n bytes into out
// (resized to n).  Returns n, or a negative code (dalshim_last_error() has
// the message; DALSHIM_E_NOMEM without one if out cannot grow).
template <class Alloc>
int64_t take_pending_into(std::vector<uint8_t, Alloc>& out, int64_t n) noexcept {
  void* where = nullptr;
  return take_pending_response(
      n, [&](size_t m) noexcept { return resize_for(out, m); },
      [](void* p, size_t m) noexcept { return dalshim_take_pending(p, m); }, &where);
}

}  // namespace dalshim
