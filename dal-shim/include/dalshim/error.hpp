// dalshim/error.hpp -- Error and Result<T>.
//
// The C++ API reports failures by value: every fallible call returns a
// Result<T> (a small std::expected-like type, since g++ 12 in C++20 mode has
// no std::expected).  Result<T>::value() throws dalshim::Error if the result
// holds an error; that is the only place the C++ API throws, and it never
// happens in code that backs the C ABI (dalshim.h), so no exception can
// cross the C boundary.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

#include "dalshim.h"

namespace dalshim {

// code is a DAL_E_* value (-1..-10) or a DALSHIM_E_* value (<= -20).
// DALSHIM_E_SQL means the call succeeded but the response carried a SQLite
// error in its "e" field; id is then the request id echoed in the response
// and sqlite_code SQLite's extended result code if the response carried
// one (docs/protocol.md), else 0; on PostgreSQL sqlstate is the SQLSTATE
// the response carried instead ("23505"), else empty.
//
// Every Error the shim returns has also been recorded as the calling
// thread's last error (dalshim_last_error / dalshim_last_error_code) and
// counted in DALSHIM_STAT_ERRORS: the C++ API and the C ABI report a
// failure the same way.  Constructing an Error yourself records nothing.
class Error : public std::runtime_error {
 public:
  Error(int32_t code, std::string message, uint64_t id = 0, int32_t sqlite_code = 0, std::string sqlstate = {})
      : std::runtime_error(message),
        code_(code),
        message_(std::move(message)),
        id_(id),
        sqlite_code_(sqlite_code),
        sqlstate_(std::move(sqlstate)) {}
  int32_t code() const noexcept { return code_; }
  const std::string& message() const noexcept { return message_; }
  uint64_t id() const noexcept { return id_; }
  int32_t sqlite_code() const noexcept { return sqlite_code_; }
  const std::string& sqlstate() const noexcept { return sqlstate_; }
  bool is_sql() const noexcept { return code_ == DALSHIM_E_SQL; }
  // The code's name, as dalshim_code_name().
  const char* name() const noexcept { return dalshim_code_name(code_); }

 private:
  int32_t code_;
  std::string message_;
  uint64_t id_;
  int32_t sqlite_code_;
  std::string sqlstate_;
};

// Name of a code ("DAL_E_HANDLE", "DALSHIM_E_LOAD", ...): dalshim_code_name().
inline const char* code_name(int32_t code) noexcept { return dalshim_code_name(code); }

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T v) : v_(std::in_place_index<0>, std::move(v)) {}      // NOLINT
  Result(Error e) : v_(std::in_place_index<1>, std::move(e)) {}  // NOLINT
  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }
  // Throws the held Error if !ok().
  T& value() & {
    check();
    return std::get<0>(v_);
  }
  const T& value() const& {
    check();
    return std::get<0>(v_);
  }
  T&& value() && {
    check();
    return std::get<0>(std::move(v_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  // Precondition: !ok().
  const Error& error() const { return std::get<1>(v_); }

 private:
  void check() const {
    if (!ok()) throw std::get<1>(v_);
  }
  std::variant<T, Error> v_;
};

struct Ok {};
using Status = Result<Ok>;

}  // namespace dalshim
