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

int32_t record(int32_t code, std::string_view message) noexcept {
  count_error();
  LastError& le = last_error();
  try {
    le.message.assign(message.data(), message.size());
    le.code = code;
  } catch (...) {
    // 13 characters: within every std::string's inline capacity.
    le.message.assign("out of memory");
    le.code = DALSHIM_E_NOMEM;
  }
  return le.code;
}

int32_t record_dal(const Library* lib, int64_t code64, int64_t handle) noexcept {
  const int32_t code = static_cast<int32_t>(code64);
  const char* m = lib != nullptr ? lib->last_error() : nullptr;
  const std::string_view dal_msg = (m != nullptr && *m != '\0') ? std::string_view(m) : dalshim_code_name(code);
  if (code == DAL_E_HANDLE && handle_was_closed(handle)) {
    return record_lazy(DALSHIM_E_CLOSED, [&] {
      return "handle " + std::to_string(handle) + " is closed (DAL: " + std::string(dal_msg) + ")";
    });
  }
  return record(code, dal_msg);
}

Error fail(int32_t code, std::string message, uint64_t id, int32_t sqlite_code, std::string sqlstate) {
  if (record(code, message) != code) return last_error_as_error();
  return Error(code, std::move(message), id, sqlite_code, std::move(sqlstate));
}

Error last_error_as_error() {
  const LastError& le = last_error();
  return Error(le.code, le.message);
}

}  // namespace dalshim::detail
