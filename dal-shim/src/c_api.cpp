// c_api.cpp -- the C ABI of dalshim.h.  No C++ exception escapes: every
// entry point is noexcept, and the code behind it reports failures by
// value (allocation failures inside std::string are caught and mapped to
// DALSHIM_E_NOMEM).
#include <malloc.h>

#include <climits>
#include <cstring>
#include <memory>
#include <new>

#include "accounting.hpp"
#include "buffer_registry.hpp"
#include "dal.h"
#include "dalshim.h"
#include "dalshim/library.hpp"
#include "last_error.hpp"
#include "planted_leak.hpp"

using dalshim::Library;
namespace detail = dalshim::detail;

namespace {

template <class F>
auto guarded(F&& f, decltype(f()) on_nomem) noexcept -> decltype(f()) {
  try {
    return f();
  } catch (...) {
    // Only std::bad_alloc can get here; record without allocating much.
    try { detail::fail(DALSHIM_E_NOMEM, "out of memory in the shim"); } catch (...) {}
    return on_nomem;
  }
}

Library* loaded_or_fail(int32_t code, const std::string& what) {
  Library* lib = Library::loaded_default();
  if (lib == nullptr) detail::fail(code, what + " (no DAL library is loaded)");
  return lib;
}

// Mode (a) scratch, per thread.  dalshim_query() runs the request with
// dal_query_into() into this buffer, then copies the n response bytes into
// an exact-size malloc()ed, registered buffer.  This is cheaper than
// dal_query() + copy + dal_free(): one call into the Go runtime instead of
// two, and no DAL-side C allocation at all -- so no DAL buffer ever outlives
// the call.  A response larger than the scratch is taken with
// dal_take_pending() straight into the final buffer (no copy), and the
// scratch grows (up to kScratchMax) so the next one fits.
constexpr size_t kScratchInitial = 64 * 1024;
constexpr size_t kScratchMax = 4 * 1024 * 1024;
struct Scratch {
  std::unique_ptr<uint8_t[]> p;
  size_t cap = 0;
};
Scratch& scratch() {
  thread_local Scratch s;
  if (!s.p) {
    s.p.reset(new (std::nothrow) uint8_t[kScratchInitial]);
    s.cap = s.p ? kScratchInitial : 0;
  }
  return s;
}

}  // namespace

extern "C" {

DALSHIM_API int32_t dalshim_version(void) { return DALSHIM_VERSION_NUMBER; }

DALSHIM_API const char* dalshim_last_error(void) { return detail::last_error().message.c_str(); }

DALSHIM_API int32_t dalshim_last_error_code(void) { return detail::last_error().code; }

DALSHIM_API int32_t dalshim_load(const char* path) {
  return guarded([&]() -> int32_t {
    auto r = Library::load_default(path ? path : "");
    return r ? DALSHIM_OK : r.error().code();
  }, DALSHIM_E_NOMEM);
}

DALSHIM_API const char* dalshim_library_path(void) {
  Library* lib = Library::loaded_default();
  return lib ? lib->path().c_str() : "";
}

DALSHIM_API int32_t dalshim_dal_version(void) {
  return guarded([&]() -> int32_t {
    Library* lib = loaded_or_fail(DALSHIM_E_LOAD, "dalshim_dal_version");
    return lib ? lib->version() : DALSHIM_E_LOAD;
  }, DALSHIM_E_NOMEM);
}

DALSHIM_API int64_t dalshim_open(const char* data_dir, const char* options) {
  return guarded([&]() -> int64_t {
    auto r = Library::default_instance();
    if (!r) return r.error().code();
    Library* lib = *r;
    // The shim's own planted leak (plant_leak=shim_malloc) is taken out of
    // the options; everything else goes to dal_open as given.
    detail::PlantRequest plant;
    std::string why;
    if (!detail::split_plant_options(options, plant, why)) return detail::fail(DAL_E_OPTIONS, std::move(why)).code();
    int64_t h = lib->open(data_dir, plant.forward_null ? nullptr : plant.dal_options.c_str());
    if (h <= 0) return detail::dal_fail(lib, h).code();
    detail::handle_opened(h);
    if (plant.shim_bytes > 0) detail::plant_register(h, plant.shim_bytes);
    return h;
  }, DALSHIM_E_NOMEM);
}

DALSHIM_API int32_t dalshim_close(int64_t h) {
  return guarded([&]() -> int32_t {
    Library* lib = loaded_or_fail(DAL_E_HANDLE, "handle " + std::to_string(h) + " is not open");
    if (lib == nullptr) return DAL_E_HANDLE;
    int32_t rc = lib->close(h);
    if (rc < 0) return detail::dal_fail(lib, rc, h).code();
    detail::handle_closed(h);
    detail::plant_forget(h);
    return DALSHIM_OK;
  }, DALSHIM_E_NOMEM);
}

DALSHIM_API void* dalshim_query(int64_t h, const void* req, size_t len) {
  return guarded([&]() -> void* {
    Library* lib = Library::loaded_default();
    if (lib == nullptr) {
      detail::fail(DAL_E_HANDLE, "handle " + std::to_string(h) + " is not open (no DAL library is loaded)");
      return nullptr;
    }
    detail::count_call(len);
    Scratch& s = scratch();
    int64_t n = lib->query_into(h, req, len, s.p.get(), s.cap);
    if (n < 0) {
      detail::dal_fail(lib, n, h);
      return nullptr;
    }
    detail::plant_per_query(h);
    const size_t sz = static_cast<size_t>(n);
    void* p = detail::BufferRegistry::allocate(sz);
    if (p == nullptr) {
      // A too-large response stays pending in the DAL until this thread's
      // next too-small call replaces it; that is dal.h's rule.
      detail::fail(DALSHIM_E_NOMEM, "cannot allocate a " + std::to_string(sz) + "-byte response buffer");
      return nullptr;
    }
    if (sz <= s.cap) {
      std::memcpy(p, s.p.get(), sz);
    } else {
      int64_t m = lib->take_pending(p, sz);
      if (m != n) {
        std::free(p);
        detail::dal_fail(lib, m < 0 ? m : DAL_E_INTERNAL);
        return nullptr;
      }
      if (sz <= kScratchMax) {
        if (uint8_t* bigger = new (std::nothrow) uint8_t[sz]) {
          s.p.reset(bigger);
          s.cap = sz;
        }
      }
    }
    detail::BufferRegistry::instance().add(p, sz);
    detail::count(detail::kResponseBytes, n);
    return p;
  }, nullptr);
}

DALSHIM_API int64_t dalshim_buffer_size(const void* p) {
  return guarded([&]() -> int64_t {
    if (p == nullptr) return detail::fail(DAL_E_NULL, "dalshim_buffer_size: NULL pointer").code();
    int64_t n = detail::BufferRegistry::instance().size(p);
    if (n == DALSHIM_E_DOUBLE_FREE)
      detail::fail(DALSHIM_E_DOUBLE_FREE, "dalshim_buffer_size: buffer was already freed");
    else if (n == DALSHIM_E_FOREIGN_POINTER)
      detail::fail(DALSHIM_E_FOREIGN_POINTER, "dalshim_buffer_size: pointer was not returned by dalshim_query");
    return n;
  }, DALSHIM_E_NOMEM);
}

DALSHIM_API int32_t dalshim_free(void* p) {
  return guarded([&]() -> int32_t {
    if (p == nullptr) return DALSHIM_OK;
    int32_t rc = detail::BufferRegistry::instance().release(p);
    if (rc == DALSHIM_E_DOUBLE_FREE)
      detail::fail(rc, "dalshim_free: double free of a shim buffer (not touched)");
    else if (rc == DALSHIM_E_FOREIGN_POINTER)
      detail::fail(rc, "dalshim_free: pointer was not returned by dalshim_query (not touched)");
    return rc;
  }, DALSHIM_E_NOMEM);
}

// The hot path: a straight call through.  Accounting is two relaxed adds on
// a per-thread-slot cache line; errors are handled out of line.
DALSHIM_API int64_t dalshim_query_into(int64_t h, const void* req, size_t len, void* buf, size_t cap) {
  Library* lib = Library::loaded_default();
  if (lib == nullptr) [[unlikely]] {
    return guarded([&]() -> int64_t {
      return detail::fail(DAL_E_HANDLE, "handle " + std::to_string(h) + " is not open (no DAL library is loaded)").code();
    }, DAL_E_HANDLE);
  }
  detail::count_call(len);
  int64_t n = lib->query_into(h, req, len, buf, cap);
  if (n < 0) [[unlikely]] {
    return guarded([&]() -> int64_t { return detail::dal_fail(lib, n, h).code(); }, n);
  }
  if (static_cast<uint64_t>(n) <= cap) detail::count(detail::kResponseBytes, n);
  detail::plant_per_query(h);
  return n;
}

DALSHIM_API int64_t dalshim_take_pending(void* buf, size_t cap) {
  Library* lib = Library::loaded_default();
  if (lib == nullptr) [[unlikely]] {
    return guarded([&]() -> int64_t {
      return detail::fail(DAL_E_MISUSE, "no pending response on this thread (no DAL library is loaded)").code();
    }, DAL_E_MISUSE);
  }
  int64_t n = lib->take_pending(buf, cap);
  if (n < 0) [[unlikely]] {
    return guarded([&]() -> int64_t { return detail::dal_fail(lib, n).code(); }, n);
  }
  if (static_cast<uint64_t>(n) <= cap) detail::count(detail::kResponseBytes, n);
  return n;
}

static int64_t shim_stat(int i) {
  switch (i) {
    case DALSHIM_STAT_CALLS: return detail::counter(detail::kCalls);
    case DALSHIM_STAT_REQUEST_BYTES: return detail::counter(detail::kRequestBytes);
    case DALSHIM_STAT_RESPONSE_BYTES: return detail::counter(detail::kResponseBytes);
    case DALSHIM_STAT_ERRORS: return detail::counter(detail::kErrors);
    case DALSHIM_STAT_BUFFERS_LIVE: return detail::BufferRegistry::instance().live();
    case DALSHIM_STAT_BUFFER_BYTES_LIVE: return detail::BufferRegistry::instance().live_bytes();
    case DALSHIM_STAT_MALLOC_INUSE: return static_cast<int64_t>(mallinfo2().uordblks);
    case DALSHIM_STAT_HANDLES_OPEN: return detail::handles_open();
    case DALSHIM_STAT_PLANTED_BYTES: return detail::planted_bytes();
    default: return INT64_MIN;
  }
}

DALSHIM_API int32_t dalshim_stats(int32_t flags, int64_t* values, int32_t capacity) {
  return guarded([&]() -> int32_t {
    if (capacity < 0) return detail::fail(DALSHIM_E_ARG, "dalshim_stats: negative capacity").code();
    if (values == nullptr && capacity > 0) return detail::fail(DAL_E_NULL, "dalshim_stats: values is NULL").code();
    int32_t n = capacity < DALSHIM_STAT_COUNT ? capacity : DALSHIM_STAT_COUNT;
    for (int32_t i = 0; i < n; ++i) values[i] = shim_stat(i);
    if (capacity <= DALSHIM_STAT_COUNT) return n;
    Library* lib = Library::loaded_default();
    if (lib == nullptr) return n;
    int32_t m = lib->stats(flags, values + DALSHIM_STAT_COUNT, capacity - DALSHIM_STAT_COUNT);
    if (m < 0) return detail::dal_fail(lib, m).code();
    return n + m;
  }, DALSHIM_E_NOMEM);
}

DALSHIM_API int64_t dalshim_stat(int32_t flags, int32_t index) {
  if (index < 0) return INT64_MIN;
  if (index < DALSHIM_STAT_COUNT) return shim_stat(index);
  Library* lib = Library::loaded_default();
  if (lib == nullptr) return INT64_MIN;
  int64_t v[64];
  int32_t want = index - DALSHIM_STAT_COUNT + 1;
  if (want > 64) return INT64_MIN;
  int32_t m = lib->stats(flags, v, want);
  if (m < want) return INT64_MIN;
  return v[index - DALSHIM_STAT_COUNT];
}

}  // extern "C"
