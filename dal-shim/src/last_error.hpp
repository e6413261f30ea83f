// last_error.hpp (internal) -- the thread-local last error shared by the C
// ABI and the C++ API, and helpers that turn DAL failures into it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "dalshim/error.hpp"

namespace dalshim {
class Library;
namespace detail {

struct LastError {
  int32_t code = 0;
  std::string message;
};
LastError& last_error() noexcept;

// Record a shim failure on this thread (and count it); returns an Error
// carrying the same code and message.
Error fail(int32_t code, std::string message);

// Record a failed DAL call: copies dal_last_error() at once (it is only
// valid until the next DAL call on this thread).  A DAL_E_HANDLE for a
// handle this process opened and closed becomes DALSHIM_E_CLOSED.
// handle = 0 when the call had no handle.
Error dal_fail(const Library* lib, int64_t code, int64_t handle = 0);

}  // namespace detail
}  // namespace dalshim
