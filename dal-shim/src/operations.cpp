#include "operations.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "buffer_registry.hpp"
#include "last_error.hpp"

namespace dalshim::detail {
namespace {

std::string not_open(int64_t h) { return "handle " + std::to_string(h) + " is not open (no DAL library is loaded)"; }

// Mode (a) scratch, per thread.  query_alloc runs the request with
// dal_query_into into this buffer, then copies the n response bytes into an
// exact-size registered buffer.  This is cheaper than dal_query + copy +
// dal_free: one call into the Go runtime instead of two, and no DAL-side C
// allocation at all -- so no DAL buffer ever outlives the call.  A response
// larger than the scratch is taken with dal_take_pending straight into the
// final buffer (no copy), and the scratch grows (up to kModeAScratchMax) so
// the next one fits.
constexpr size_t kModeAScratchInitial = 64 * 1024;
constexpr size_t kModeAScratchMax = 4 * 1024 * 1024;
struct ModeAScratch {
  std::unique_ptr<uint8_t[]> p;
  size_t cap = 0;
};
ModeAScratch& mode_a_scratch() noexcept {
  thread_local ModeAScratch s;
  if (!s.p) {
    s.p.reset(new (std::nothrow) uint8_t[kModeAScratchInitial]);
    s.cap = s.p ? kModeAScratchInitial : 0;
  }
  return s;
}

// A malloc()ed buffer of n bytes (at least 1), registered; nullptr (and
// DALSHIM_E_NOMEM recorded) if either step fails -- never a leak.
void* new_registered(size_t n) noexcept {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p != nullptr && BufferRegistry::process().add(p, n)) return p;
  std::free(p);
  record_lazy(DALSHIM_E_NOMEM, [&] { return "cannot allocate a " + std::to_string(n) + "-byte response buffer"; });
  return nullptr;
}

// A registered copy of a failure's message for query_alloc_ex: size bytes
// plus a NUL the registry does not count (the caller may read it as a C
// string).  nullptr if it cannot be allocated; nothing is recorded then,
// so the failure being reported stays the thread's last error.
void* new_message_buffer(const std::string& message) noexcept {
  const size_t n = message.size();
  void* p = std::malloc(n + 1);
  if (p == nullptr) return nullptr;
  std::memcpy(p, message.data(), n);
  static_cast<char*>(p)[n] = '\0';
  if (BufferRegistry::process().add(p, n)) return p;
  std::free(p);
  return nullptr;
}

}  // namespace

int64_t open_handle(Library* lib, const char* data_dir, const char* options) noexcept {
  try {
    if (lib == nullptr) {
      auto r = Library::default_instance();
      if (!r) return r.error().code();
      lib = *r;
    }
    PlantRequest plant;
    std::string why;
    if (!split_plant_options(options, plant, why)) return record(DAL_E_OPTIONS, why);
    const int64_t h = lib->open(data_dir, plant.forward_null ? nullptr : plant.dal_options.c_str());
    if (h <= 0) return record_dal(lib, h);
    handle_opened(h);
    if (plant.shim_bytes > 0) plant_register(h, plant.shim_bytes);
    return h;
  } catch (...) {  // std::bad_alloc from the option strings
    return record(DALSHIM_E_NOMEM, "out of memory");
  }
}

int32_t close_handle(Library* lib, int64_t h) noexcept {
  if (lib == nullptr) return record_lazy(DAL_E_HANDLE, [&] { return not_open(h); });
  const int32_t rc = lib->close(h);
  if (rc < 0) return record_dal(lib, rc, h);
  handle_closed();
  plant_forget(h);
  return DALSHIM_OK;
}

int64_t query_into_failed(Library* lib, int64_t h, int64_t code) noexcept {
  if (lib == nullptr) return record_lazy(DAL_E_HANDLE, [&] { return not_open(h); });
  return record_dal(lib, code, h);
}

int32_t exec_sql(Library* lib, int64_t h, const char* db, size_t db_len, const char* sql, size_t sql_len) noexcept {
  if (lib == nullptr) return record_lazy(DAL_E_HANDLE, [&] { return not_open(h); });
  if (lib->exec == nullptr)
    return record_lazy(DALSHIM_E_LOAD, [&] {
      return "DAL library '" + lib->path() + "' has no dal_exec (it implements dal.h " +
             std::to_string(lib->version() / 1000000) + "." + std::to_string(lib->version() / 1000 % 1000) +
             "; dal_exec needs 1.1)";
    });
  const int32_t rc = lib->exec(h, db, db_len, sql, sql_len);
  if (rc < 0) return record_dal(lib, rc, h);
  return DALSHIM_OK;
}

int64_t take_pending(Library* lib, void* buf, size_t cap) noexcept {
  if (lib == nullptr) [[unlikely]]
    return record(DAL_E_MISUSE, "no pending response on this thread (no DAL library is loaded)");
  const int64_t n = lib->take_pending(buf, cap);
  if (n < 0) [[unlikely]]
    return record_dal(lib, n);
  if (static_cast<uint64_t>(n) <= cap) count_response_bytes(n);
  return n;
}

void* grow_vector(Bytes& v, size_t n) noexcept {
  void* p = resize_for(v, n);
  if (p == nullptr)
    record_lazy(DALSHIM_E_NOMEM, [&] { return "cannot allocate a " + std::to_string(n) + "-byte response buffer"; });
  return p;
}

int64_t query_to(Library* lib, int64_t h, const void* req, size_t len, Bytes& out) noexcept {
  try {
    // Offer the whole capacity, not the size: the previous call shrank out to
    // its response, and using that size as the next capacity made a 64 KiB
    // scratch act as 4 KiB (every mid-size response went through
    // take_pending).  Growing within the capacity neither allocates nor
    // writes: Bytes default-initialises (dalshim/bytes.hpp).
    const size_t want = std::max(out.capacity(), kFirstTry);
    if (out.size() < want) out.resize(want);
  } catch (...) {
    return record(DALSHIM_E_NOMEM, "out of memory");
  }
  void* where = nullptr;
  const int64_t n = query_or_take(lib, h, req, len, out.data(), out.size(), grow_into(out), &where);
  if (n >= 0) out.resize(static_cast<size_t>(n));  // shrinking: never allocates
  return n;
}

void* query_alloc(Library* lib, int64_t h, const void* req, size_t len, size_t* size_out) noexcept {
  ModeAScratch& s = mode_a_scratch();
  void* where = nullptr;
  const int64_t n = query_or_take(lib, h, req, len, s.p.get(), s.cap, new_registered, &where);
  if (n < 0) {
    // Taking the pending response failed after its buffer was registered.
    if (where != nullptr && where != s.p.get()) BufferRegistry::process().release(where);
    return nullptr;
  }
  const size_t sz = static_cast<size_t>(n);
  void* p = where;
  if (where == s.p.get()) {
    p = new_registered(sz);
    if (p == nullptr) return nullptr;
    std::memcpy(p, s.p.get(), sz);
  } else if (sz <= kModeAScratchMax) {
    // Taken straight into p; grow the scratch so the next one fits.
    if (uint8_t* bigger = new (std::nothrow) uint8_t[sz]) {
      s.p.reset(bigger);
      s.cap = sz;
    }
  }
  *size_out = sz;
  return p;
}

void* query_alloc_ex(Library* lib, int64_t h, const void* req, size_t len, int32_t* code_out) noexcept {
  if (code_out == nullptr) {
    record(DAL_E_NULL, "dalshim_query_ex: code_out is NULL (the request was not executed)");
    return nullptr;
  }
  size_t n = 0;
  if (void* p = query_alloc(lib, h, req, len, &n)) {
    *code_out = DALSHIM_OK;
    return p;
  }
  // Every failure of query_alloc was recorded on this thread just now.
  const LastError& le = last_error();
  *code_out = le.code;
  return new_message_buffer(le.message);
}

int32_t free_buffer(void* p) noexcept {
  if (p == nullptr) return DALSHIM_OK;
  const int64_t rc = BufferRegistry::process().release(p);
  if (rc >= 0) return DALSHIM_OK;
  if (rc == DALSHIM_E_DOUBLE_FREE)
    return record(DALSHIM_E_DOUBLE_FREE, "dalshim_free: double free of a shim buffer (not touched)");
  return record(DALSHIM_E_FOREIGN_POINTER, "dalshim_free: pointer was not returned by dalshim_query (not touched)");
}

int64_t buffer_size(const void* p) noexcept {
  if (p == nullptr) return record(DAL_E_NULL, "dalshim_buffer_size: NULL pointer");
  const int64_t n = BufferRegistry::process().size(p);
  if (n >= 0) return n;
  if (n == DALSHIM_E_DOUBLE_FREE) return record(DALSHIM_E_DOUBLE_FREE, "dalshim_buffer_size: buffer was already freed");
  return record(DALSHIM_E_FOREIGN_POINTER, "dalshim_buffer_size: pointer was not returned by dalshim_query");
}

}  // namespace dalshim::detail
