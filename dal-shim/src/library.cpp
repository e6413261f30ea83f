#include "dalshim/library.hpp"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "dal.h"
#include "last_error.hpp"

// NEVER dlclose() a DAL.  The reference DAL is a Go c-shared library: loading
// it starts a Go runtime (threads, signal handlers, a heap) that cannot be
// shut down (golang/go#11100).  After a dlclose() the next signal or
// scheduler tick on one of its threads jumps into unmapped code and the
// process dies.  So every dlopen() handle below is deliberately kept for the
// life of the process -- even when the load is then refused (missing symbol,
// wrong version): by that time the library's constructors, and thus a Go
// runtime, may already be running.  Library objects are leaked for the same
// reason: a Library* stays valid until exit, including in static destructors.

namespace dalshim {
namespace {

void anchor() {}  // an address inside the binary that holds the shim

std::mutex g_mu;                            // guards loads
std::map<std::string, Library*>* g_loaded;  // by canonical path; leaked
std::atomic<Library*> g_default{nullptr};

std::string canonical(const std::string& p) {
  char buf[PATH_MAX];
  if (realpath(p.c_str(), buf) != nullptr) return buf;
  return p;
}

std::string version_text(int32_t v) {
  return std::to_string(v / 1000000) + "." + std::to_string(v / 1000 % 1000) + "." + std::to_string(v % 1000);
}

template <class F>
bool resolve(void* h, const char* name, F*& out, const std::string& path, Error* err) {
  dlerror();
  void* s = dlsym(h, name);
  if (s == nullptr) {
    const char* why = dlerror();
    *err = Error(DALSHIM_E_LOAD, "DAL library '" + path + "' lacks symbol '" + name + "'" +
                                     (why ? std::string(" (") + why + ")" : std::string()));
    return false;
  }
  out = reinterpret_cast<F*>(s);
  return true;
}

}  // namespace

std::string Library::default_path() {
  if (const char* env = std::getenv("DAL_LIBRARY"); env != nullptr && *env != '\0') return env;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&anchor), &info) != 0 && info.dli_fname != nullptr) {
    std::string self = canonical(info.dli_fname);
    auto slash = self.rfind('/');
    if (slash != std::string::npos) return self.substr(0, slash + 1) + "libdal.so";
  }
  return "libdal.so";  // last resort: the dynamic loader's search path
}

Result<Library*> Library::load(const std::string& requested) {
  const std::string path = requested.empty() ? default_path() : requested;
  const std::string key = canonical(path);
  std::lock_guard lk(g_mu);
  if (g_loaded == nullptr) g_loaded = new std::map<std::string, Library*>();
  if (auto it = g_loaded->find(key); it != g_loaded->end()) return it->second;

  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* why = dlerror();
    return detail::fail(DALSHIM_E_LOAD, "cannot load DAL library '" + path +
                                            "': " + (why ? why : "unknown dlopen error") +
                                            (requested.empty() ? " (set DAL_LIBRARY or call dalshim_load)" : ""));
  }
  auto* lib = new Library();  // never deleted, see above
  lib->path_ = key;
  Error err(0, "");
  bool ok = resolve(h, "dal_version", lib->version_fn, key, &err) &&
            resolve(h, "dal_version_string", lib->version_string_fn, key, &err) &&
            resolve(h, "dal_last_error", lib->last_error, key, &err) &&
            resolve(h, "dal_last_error_code", lib->last_error_code, key, &err) &&
            resolve(h, "dal_open", lib->open, key, &err) && resolve(h, "dal_close", lib->close, key, &err) &&
            resolve(h, "dal_query", lib->query, key, &err) && resolve(h, "dal_free", lib->free, key, &err) &&
            resolve(h, "dal_query_into", lib->query_into, key, &err) &&
            resolve(h, "dal_take_pending", lib->take_pending, key, &err) &&
            resolve(h, "dal_stats", lib->stats, key, &err);
  if (!ok) {
    delete lib;
    return detail::fail(err.code(), err.message());
  }
  // Optional: dal.h 1.0 has no dal_exec, and such a DAL still serves queries.
  lib->exec = reinterpret_cast<decltype(lib->exec)>(dlsym(h, "dal_exec"));
  lib->version_ = lib->version_fn();
  if (lib->version_ / 1000000 != DAL_VERSION_MAJOR) {
    std::string msg = "DAL library '" + key + "' implements dal.h " + version_text(lib->version_) +
                      " (dal_version() = " + std::to_string(lib->version_) + "); this shim needs major " +
                      std::to_string(DAL_VERSION_MAJOR) + " (built against " + version_text(DAL_VERSION_NUMBER) + ")";
    delete lib;
    return detail::fail(DALSHIM_E_VERSION, std::move(msg));
  }
  (*g_loaded)[key] = lib;
  return lib;
}

Library* Library::loaded_default() noexcept { return g_default.load(std::memory_order_acquire); }

Result<Library*> Library::default_instance() {
  if (Library* l = loaded_default()) return l;
  return load_default({});
}

Result<Library*> Library::load_default(const std::string& path) {
  static std::mutex mu;  // serializes default selection (load() has its own lock)
  std::lock_guard lk(mu);
  if (Library* cur = loaded_default()) {
    if (path.empty() || canonical(path) == cur->path()) return cur;
    return detail::fail(DALSHIM_E_LOADED, "cannot load DAL library '" + path + "': '" + cur->path() +
                                              "' is already loaded (a DAL can never be unloaded)");
  }
  auto r = load(path);
  if (!r) return r;
  g_default.store(*r, std::memory_order_release);
  return r;
}

}  // namespace dalshim
