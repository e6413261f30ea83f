// c_api.cpp -- the C ABI of dalshim.h: thin wrappers over the one
// implementation of each operation (operations.hpp), which the C++ API
// (database.cpp) wraps too.  No C++ exception escapes: every entry point is
// noexcept, and the code behind it reports failures by value.
#include <malloc.h>

#include <climits>
#include <string>

#include "accounting.hpp"
#include "buffer_registry.hpp"
#include "dal.h"
#include "dalshim.h"
#include "dalshim/library.hpp"
#include "last_error.hpp"
#include "operations.hpp"
#include "planted_leak.hpp"

using dalshim::Library;
namespace detail = dalshim::detail;

namespace {

int64_t shim_stat(int i) noexcept {
  switch (i) {
    case DALSHIM_STAT_CALLS: return detail::counter(detail::kCalls);
    case DALSHIM_STAT_REQUEST_BYTES: return detail::counter(detail::kRequestBytes);
    case DALSHIM_STAT_RESPONSE_BYTES: return detail::counter(detail::kResponseBytes);
    case DALSHIM_STAT_ERRORS: return detail::counter(detail::kErrors);
    case DALSHIM_STAT_BUFFERS_LIVE: return detail::BufferRegistry::process().live();
    case DALSHIM_STAT_BUFFER_BYTES_LIVE: return detail::BufferRegistry::process().live_bytes();
    case DALSHIM_STAT_MALLOC_INUSE: return static_cast<int64_t>(mallinfo2().uordblks);
    case DALSHIM_STAT_HANDLES_OPEN: return detail::handles_open();
    case DALSHIM_STAT_PLANTED_BYTES: return detail::planted_bytes();
    default: return INT64_MIN;
  }
}

}  // namespace

extern "C" {

DALSHIM_API int32_t dalshim_version(void) { return DALSHIM_VERSION_NUMBER; }

DALSHIM_API const char* dalshim_last_error(void) { return detail::last_error().message.c_str(); }

DALSHIM_API int32_t dalshim_last_error_code(void) { return detail::last_error().code; }

DALSHIM_API int32_t dalshim_load(const char* path) {
  try {
    auto r = Library::load_default(path ? path : "");
    return r ? DALSHIM_OK : r.error().code();
  } catch (...) {  // std::bad_alloc from the path strings
    return detail::record(DALSHIM_E_NOMEM, "out of memory");
  }
}

DALSHIM_API const char* dalshim_library_path(void) {
  Library* lib = Library::loaded_default();
  return lib ? lib->path().c_str() : "";
}

DALSHIM_API int32_t dalshim_dal_version(void) {
  Library* lib = Library::loaded_default();
  if (lib == nullptr) return detail::record(DALSHIM_E_LOAD, "dalshim_dal_version: no DAL library is loaded");
  return lib->version();
}

DALSHIM_API int64_t dalshim_open(const char* data_dir, const char* options) {
  return detail::open_handle(nullptr, data_dir, options);
}

DALSHIM_API int32_t dalshim_close(int64_t h) { return detail::close_handle(Library::loaded_default(), h); }

DALSHIM_API void* dalshim_query(int64_t h, const void* req, size_t len) {
  size_t n = 0;
  return detail::query_alloc(Library::loaded_default(), h, req, len, &n);
}

DALSHIM_API void* dalshim_query_ex(int64_t h, const void* req, size_t len, int32_t* code_out) {
  return detail::query_alloc_ex(Library::loaded_default(), h, req, len, code_out);
}

DALSHIM_API int64_t dalshim_buffer_size(const void* p) { return detail::buffer_size(p); }

DALSHIM_API int32_t dalshim_free(void* p) { return detail::free_buffer(p); }

// The hot path: an inline call through (operations.hpp).
DALSHIM_API int64_t dalshim_query_into(int64_t h, const void* req, size_t len, void* buf, size_t cap) {
  return detail::query_into(Library::loaded_default(), h, req, len, buf, cap);
}

DALSHIM_API int32_t dalshim_exec(int64_t h, const char* db, size_t db_len, const char* sql, size_t sql_len) {
  return detail::exec_sql(Library::loaded_default(), h, db, db_len, sql, sql_len);
}

DALSHIM_API int64_t dalshim_take_pending(void* buf, size_t cap) {
  return detail::take_pending(Library::loaded_default(), buf, cap);
}

// Argument checks in dal_stats' order, with its codes, so the same misuse
// gives the same code from dal_stats and dalshim_stats.
DALSHIM_API int32_t dalshim_stats(int32_t flags, int64_t* values, int32_t capacity) {
  if (values == nullptr && capacity > 0) return detail::record(DAL_E_NULL, "dalshim_stats: values is NULL");
  if (capacity < 0) return detail::record(DAL_E_MISUSE, "dalshim_stats: capacity is negative");
  if ((flags & ~DALSHIM_STATS_FORCE_GC) != 0)
    return detail::record_lazy(DAL_E_MISUSE, [&] {
      return "dalshim_stats: unknown flag bits " + std::to_string(flags & ~DALSHIM_STATS_FORCE_GC) +
             "; the only flag is DALSHIM_STATS_FORCE_GC (1)";
    });
  const int32_t n = capacity < DALSHIM_STAT_COUNT ? capacity : DALSHIM_STAT_COUNT;
  for (int32_t i = 0; i < n; ++i) values[i] = shim_stat(i);
  if (capacity <= DALSHIM_STAT_COUNT) return n;
  Library* lib = Library::loaded_default();
  if (lib == nullptr) return n;
  const int32_t m = lib->stats(flags, values + DALSHIM_STAT_COUNT, capacity - DALSHIM_STAT_COUNT);
  if (m < 0) return detail::record_dal(lib, m);
  return n + m;
}

DALSHIM_API int64_t dalshim_stat(int32_t flags, int32_t index) {
  if (index < 0) return INT64_MIN;
  if (index < DALSHIM_STAT_COUNT) return shim_stat(index);
  Library* lib = Library::loaded_default();
  if (lib == nullptr) return INT64_MIN;
  int64_t v[64];
  const int32_t want = index - DALSHIM_STAT_COUNT + 1;
  if (want > 64) return INT64_MIN;
  const int32_t m = lib->stats(flags, v, want);
  if (m < want) return INT64_MIN;
  return v[index - DALSHIM_STAT_COUNT];
}

}  // extern "C"
