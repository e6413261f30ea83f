// dalshim/library.hpp -- a loaded implementation of dal.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "dalshim/error.hpp"

namespace dalshim {

// The resolved dal.h entry points of one loaded library.  A Library is
// created once and never destroyed or dlclose()d (see library.cpp), so a
// Library* stays valid for the life of the process.
class Library {
 public:
  // Load a library.  path: explicit file; empty = $DAL_LIBRARY, else
  // libdal.so beside the binary that contains the shim.  Every call loads
  // (dlopen() itself returns the same mapping for the same file).
  static Result<Library*> load(const std::string& path = {});

  // The process-wide default instance: loaded on first use with the default
  // resolution unless set_default()/load_default(path) ran first.
  // Thread-safe.  A failed load is not cached: the next call retries.
  static Result<Library*> default_instance();
  // Load path (or default resolution if empty) as the default instance.
  // Fails with DALSHIM_E_LOADED if a different library is already default.
  static Result<Library*> load_default(const std::string& path);
  // The default instance if loaded, else nullptr.  Never loads.  Lock-free.
  static Library* loaded_default() noexcept;
  // Where libdal.so would be looked for by the default resolution.
  static std::string default_path();

  const std::string& path() const noexcept { return path_; }
  int32_t version() const noexcept { return version_; }
  const char* version_string() const noexcept { return version_string_fn(); }

  // dal.h, resolved.  Plain function pointers: call them directly on the
  // hot path.
  int32_t (*version_fn)(void) = nullptr;
  const char* (*version_string_fn)(void) = nullptr;
  const char* (*last_error)(void) = nullptr;
  int32_t (*last_error_code)(void) = nullptr;
  int64_t (*open)(const char*, const char*) = nullptr;
  int32_t (*close)(int64_t) = nullptr;
  int64_t (*query)(int64_t, const void*, size_t, void**) = nullptr;
  int32_t (*free)(void*) = nullptr;
  int64_t (*query_into)(int64_t, const void*, size_t, void*, size_t) = nullptr;
  int64_t (*take_pending)(void*, size_t) = nullptr;
  int32_t (*stats)(int32_t, int64_t*, int32_t) = nullptr;
  // dal_exec, added in dal.h 1.1: nullptr when the library is a 1.0 DAL
  // (still loadable; dalshim_exec then fails with DALSHIM_E_LOAD).
  int32_t (*exec)(int64_t, const char*, size_t, const char*, size_t) = nullptr;

  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

 private:
  Library() = default;
  std::string path_;
  int32_t version_ = 0;
};

}  // namespace dalshim
