#include "last_error.hpp"

#include <string>

#include "accounting.hpp"
#include "dal.h"
#include "dalshim/library.hpp"

namespace dalshim::detail {

LastError& last_error() noexcept {
  thread_local LastError e;
  return e;
}

Error fail(int32_t code, std::string message) {
  count(kErrors, 1);
  LastError& le = last_error();
  le.code = code;
  le.message = message;
  return Error(code, std::move(message));
}

Error dal_fail(const Library* lib, int64_t code, int64_t handle) {
  std::string msg;
  if (lib != nullptr) {
    const char* m = lib->last_error();
    msg = (m != nullptr && *m != '\0') ? m : code_name(static_cast<int32_t>(code));
  }
  int32_t c = static_cast<int32_t>(code);
  if (c == DAL_E_HANDLE && handle > 0 && handle_was_closed(handle)) {
    c = DALSHIM_E_CLOSED;
    msg = "handle " + std::to_string(handle) + " is closed (DAL: " + msg + ")";
  }
  return fail(c, std::move(msg));
}

}  // namespace dalshim::detail
