// last_error.hpp (internal) -- the thread-local last error shared by the C
// ABI and the C++ API.  Every failure of the shim goes through record()
// (directly or via fail()/dal_fail()): it sets the thread's code and
// message and counts DALSHIM_STAT_ERRORS, so a failure reads the same on
// every surface.
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

// Record a failure on this thread; returns code.  Never throws: if the
// message cannot be stored, the record becomes DALSHIM_E_NOMEM "out of
// memory" (short enough never to allocate) and that code is returned.
int32_t record(int32_t code, std::string_view message) noexcept;

// record() with a message that is only built on the failure path (it may
// allocate; an allocation failure records DALSHIM_E_NOMEM instead).
template <class MakeMessage>
int32_t record_lazy(int32_t code, MakeMessage&& make) noexcept {
  try {
    return record(code, make());
  } catch (...) {
    return record(DALSHIM_E_NOMEM, "out of memory");
  }
}

// Record a failed DAL call: copies dal_last_error() at once (it is only
// valid until the next DAL call on this thread).  A DAL_E_HANDLE for a
// handle this process has seen issued becomes DALSHIM_E_CLOSED (see
// accounting.hpp).  handle = 0 when the call had no handle.
int32_t record_dal(const Library* lib, int64_t code, int64_t handle = 0) noexcept;

// The C++ API's forms: record, then return an Error with the same code and
// message (the recorded ones, in case recording fell back to NOMEM).
Error fail(int32_t code, std::string message, uint64_t id = 0, int32_t sqlite_code = 0, std::string sqlstate = {});
// The thread's current record as an Error (after a negative return from a
// recording function).
Error last_error_as_error();

}  // namespace detail
}  // namespace dalshim
