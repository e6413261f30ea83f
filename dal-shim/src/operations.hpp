// operations.hpp (internal) -- the one implementation of each operation of
// the shim.  The C ABI (c_api.cpp) and the C++ API (database.cpp) are thin
// wrappers over these, so open/close, accounting, planted leaks and the
// "response too small -> take pending" flow exist exactly once.
//
// Every function returns what the C ABI returns (a handle, a length, or a
// negative code) and never throws.  On failure the code and message are
// recorded as the thread's last error (last_error.hpp); the C++ API turns
// that record into its Error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "accounting.hpp"
#include "dal.h"
#include "dalshim.h"
#include "dalshim/bytes.hpp"
#include "dalshim/library.hpp"
#include "dalshim/pending.hpp"
#include "planted_leak.hpp"

namespace dalshim::detail {

// dal_open with the shim's own option (plant_leak=shim_malloc) taken out;
// counts the handle and registers its plant.  lib == nullptr: load the
// default library first.
int64_t open_handle(Library* lib, const char* data_dir, const char* options) noexcept;

// dal_close; forgets the handle's plant.  DALSHIM_E_CLOSED if it was closed
// already, DAL_E_HANDLE if never issued.
int32_t close_handle(Library* lib, int64_t h) noexcept;

// Out of line: the failure paths of query_into.
int64_t query_into_failed(Library* lib, int64_t h, int64_t code) noexcept;

// Mode (b): dal_query_into, with accounting and the shim's planted leak.
// n <= cap: the response is in buf[0..n).  n > cap: nothing written, the
// response is pending for this thread (take_pending).  The hot path of the
// kit: inline, two relaxed adds and one relaxed load beside the DAL call.
inline int64_t query_into(Library* lib, int64_t h, const void* req, size_t len, void* buf, size_t cap) noexcept {
  if (lib == nullptr) [[unlikely]]
    return query_into_failed(nullptr, h, DAL_E_HANDLE);
  count_call(len);
  const int64_t n = lib->query_into(h, req, len, buf, cap);
  if (n < 0) [[unlikely]]
    return query_into_failed(lib, h, n);
  if (static_cast<uint64_t>(n) <= cap) count_response_bytes(n);
  plant_per_query(h);
  return n;
}

// dal_exec: administrative SQL text (schemas, migrations) on the writer
// connection of database db.  Not a query: not counted in
// DALSHIM_STAT_CALLS and no planted leak.  DALSHIM_OK or a code.
int32_t exec_sql(Library* lib, int64_t h, const char* db, size_t db_len, const char* sql, size_t sql_len) noexcept;

// dal_take_pending, with accounting.
int64_t take_pending(Library* lib, void* buf, size_t cap) noexcept;

// query_into(first, first_cap); if the response does not fit, dest(n)
// gives a destination of n bytes (or nullptr: out of memory, recorded by
// dest) and the pending response is taken into it -- the request is never
// re-sent (dalshim/pending.hpp, the one take-pending step).  Returns n or a
// code, and sets *where to where the response is:
// first, or dest's pointer.  If dest's pointer was obtained but the take
// failed, *where is still set to it (the caller releases it).
template <class Dest>
int64_t query_or_take(Library* lib, int64_t h, const void* req, size_t len, void* first, size_t first_cap, Dest&& dest,
                      void** where) noexcept {
  const int64_t n = query_into(lib, h, req, len, first, first_cap);
  if (n < 0 || static_cast<uint64_t>(n) <= first_cap) {
    *where = first;
    return n;
  }
  return take_pending_response(
      n, dest, [lib](void* p, size_t cap) noexcept { return take_pending(lib, p, cap); }, where);
}

// A dest for query_or_take that resizes v to n bytes (nullptr and
// DALSHIM_E_NOMEM recorded if it cannot).
void* grow_vector(Bytes& v, size_t n) noexcept;
inline auto grow_into(Bytes& v) noexcept {
  return [&v](size_t n) noexcept { return grow_vector(v, n); };
}

// Mode (b) into a vector: out is used at its current size (at least
// kFirstTry bytes), then resized to exactly n.  Returns n or a code.
inline constexpr size_t kFirstTry = 4096;
int64_t query_to(Library* lib, int64_t h, const void* req, size_t len, Bytes& out) noexcept;

// Mode (a): a malloc()ed buffer of exactly the response, registered in
// BufferRegistry::process(); *size_out = its size.  nullptr on failure.
void* query_alloc(Library* lib, int64_t h, const void* req, size_t len, size_t* size_out) noexcept;
// query_alloc with the outcome returned (dalshim_query_ex): *code_out =
// DALSHIM_OK and the response, or the failure's code and a registered
// buffer holding its message (NUL-terminated, the NUL not in its size).
// nullptr: code_out is nullptr (DAL_E_NULL recorded, nothing executed), or
// the message buffer could not be allocated (*code_out is set).
void* query_alloc_ex(Library* lib, int64_t h, const void* req, size_t len, int32_t* code_out) noexcept;
// Release a mode (a) buffer: DALSHIM_OK, DALSHIM_E_DOUBLE_FREE or
// DALSHIM_E_FOREIGN_POINTER (pointer untouched).  nullptr is a no-op.
int32_t free_buffer(void* p) noexcept;
// Size of a live mode (a) buffer, or DAL_E_NULL / DALSHIM_E_DOUBLE_FREE /
// DALSHIM_E_FOREIGN_POINTER.
int64_t buffer_size(const void* p) noexcept;

}  // namespace dalshim::detail
