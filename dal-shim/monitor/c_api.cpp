// c_api.cpp -- the dalmon_* C ABI over Monitor and RunRegistry.
//
// Every entry point catches every exception: an exception escaping into a
// JS runtime or a Go-hosting process terminates it (boundary-pitfalls.md).

#include <time.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "../include/dalmonitor.h"
#include "monitor.hpp"
#include "process_probe.hpp"
#include "run_params.hpp"
#include "run_registry.hpp"

using dalmon::Monitor;
using dalmon::RunRegistry;

namespace {

thread_local std::string t_error;
thread_local int32_t t_code = DALMON_OK;

template <typename T>
T fail(int32_t code, std::string msg) {
  t_code = code;
  try {
    t_error = std::move(msg);
  } catch (...) {
    t_error.clear();
  }
  return static_cast<T>(code);
}

// Lock-free (RunRegistry): the hot-path calls below pay two atomic adds.
template <typename T>
RunRegistry::RunLease lookup(int64_t run, T& err) {
  auto m = RunRegistry::instance().find(run);
  if (!m) err = fail<T>(DALMON_E_RUN, "unknown run id " + std::to_string(run));
  return m;
}

// Run body, translating exceptions into codes.
template <typename T, typename F>
T guarded(F&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return fail<T>(DALMON_E_NOMEM, "out of memory");
  } catch (const std::exception& e) {
    return fail<T>(DALMON_E_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return fail<T>(DALMON_E_INTERNAL, "internal error");
  }
}

int64_t copy_report(const std::string& s, char* buf, size_t cap) {
  size_t n = s.size();
  if (n > cap) return static_cast<int64_t>(n);
  if (buf == nullptr) {
    if (n == 0) return 0;
    return fail<int64_t>(DALMON_E_NULL, "buf is NULL but cap > 0");
  }
  std::memcpy(buf, s.data(), n);
  if (n < cap) buf[n] = '\0';
  return static_cast<int64_t>(n);
}

template <bool Json>
int64_t report(int64_t run, char* buf, size_t cap) {
  return guarded<int64_t>([&]() -> int64_t {
    int64_t err = 0;
    auto m = lookup(run, err);
    if (!m) return err;
    if (buf == nullptr && cap > 0) return fail<int64_t>(DALMON_E_NULL, "buf is NULL but cap > 0");
    if (!m->finished()) return fail<int64_t>(DALMON_E_STATE, "call dalmon_finish before asking for a report");
    return copy_report(Json ? m->json_report() : m->text_report(), buf, cap);
  });
}

}  // namespace

extern "C" {

DALMON_API int32_t dalmon_version(void) { return DALMON_VERSION_NUMBER; }

DALMON_API const char* dalmon_last_error(void) { return t_error.c_str(); }

DALMON_API int32_t dalmon_last_error_code(void) { return t_code; }

DALMON_API int64_t dalmon_start(const char* params_kv) {
  return guarded<int64_t>([&]() -> int64_t {
    dalmon::RunParams p;
    std::string err;
    if (!dalmon::parse_run_params(params_kv ? params_kv : "", p, err)) return fail<int64_t>(DALMON_E_PARAMS, err);
    int64_t id = RunRegistry::instance().add(std::make_unique<Monitor>(std::move(p)));
    if (id == 0)
      return fail<int64_t>(DALMON_E_LIMIT, "too many runs alive (" + std::to_string(RunRegistry::kSlots) +
                                               "): call dalmon_end for runs that are done");
    return id;
  });
}

DALMON_API int32_t dalmon_mark_startup(int64_t run, int64_t rss_after_load, int64_t ns_to_first_query) {
  return guarded<int32_t>([&]() -> int32_t {
    int32_t err = 0;
    auto m = lookup(run, err);
    if (!m) return err;
    m->mark_startup(rss_after_load, ns_to_first_query);
    return DALMON_OK;
  });
}

DALMON_API int32_t dalmon_sample(int64_t run, int64_t queries_done, int64_t js_heap_used, int64_t js_heap_total,
                                 int64_t js_external, int64_t js_array_buffers) {
  return guarded<int32_t>([&]() -> int32_t {
    int32_t err = 0;
    auto m = lookup(run, err);
    if (!m) return err;
    if (m->finished()) return fail<int32_t>(DALMON_E_STATE, "run already finished");
    std::string msg;
    int64_t idx = m->sample(queries_done, {js_heap_used, js_heap_total, js_external, js_array_buffers}, msg);
    if (idx < 0) return fail<int32_t>(DALMON_E_RANGE, msg);
    return static_cast<int32_t>(idx > INT32_MAX ? INT32_MAX : idx);
  });
}

DALMON_API int32_t dalmon_record_latency_ns(int64_t run, int64_t ns) {
  return guarded<int32_t>([&]() -> int32_t {
    int32_t err = 0;
    auto m = lookup(run, err);
    if (!m) return err;
    if (ns < 0) return fail<int32_t>(DALMON_E_RANGE, "negative latency");
    m->record_latency(ns);
    return DALMON_OK;
  });
}

DALMON_API int32_t dalmon_record_latencies_ns(int64_t run, const int64_t* ns, size_t count) {
  return guarded<int32_t>([&]() -> int32_t {
    int32_t err = 0;
    auto m = lookup(run, err);
    if (!m) return err;
    if (count == 0) return DALMON_OK;
    if (!ns) return fail<int32_t>(DALMON_E_NULL, "ns is NULL");
    // Check first so a bad batch leaves the histogram untouched.
    for (size_t i = 0; i < count; ++i)
      if (ns[i] < 0) return fail<int32_t>(DALMON_E_RANGE, "negative latency at index " + std::to_string(i));
    m->record_latencies(ns, count);
    return DALMON_OK;
  });
}

DALMON_API int32_t dalmon_count(int64_t run, int64_t queries, int64_t bytes_in, int64_t bytes_out, int64_t errors) {
  return guarded<int32_t>([&]() -> int32_t {
    int32_t err = 0;
    auto m = lookup(run, err);
    if (!m) return err;
    if (queries < 0 || bytes_in < 0 || bytes_out < 0 || errors < 0)
      return fail<int32_t>(DALMON_E_RANGE, "counts must be >= 0");
    m->count(queries, bytes_in, bytes_out, errors);
    return DALMON_OK;
  });
}

DALMON_API int32_t dalmon_fail(int64_t run, const char* reason) {
  return guarded<int32_t>([&]() -> int32_t {
    int32_t err = 0;
    auto m = lookup(run, err);
    if (!m) return err;
    m->fail(reason ? reason : "");
    return DALMON_OK;
  });
}

DALMON_API int32_t dalmon_mark_interrupted(int64_t run, const char* cause) {
  return guarded<int32_t>([&]() -> int32_t {
    int32_t err = 0;
    auto m = lookup(run, err);
    if (!m) return err;
    if (m->finished()) return fail<int32_t>(DALMON_E_STATE, "run already finished");
    m->mark_interrupted(cause ? cause : "");
    return DALMON_OK;
  });
}

DALMON_API int32_t dalmon_finish(int64_t run) {
  return guarded<int32_t>([&]() -> int32_t {
    int32_t err = 0;
    auto m = lookup(run, err);
    if (!m) return err;
    return m->finish().exit_code;
  });
}

DALMON_API int32_t dalmon_borderline(int64_t run) {
  return guarded<int32_t>([&]() -> int32_t {
    int32_t err = 0;
    auto m = lookup(run, err);
    if (!m) return err;
    if (!m->finished()) return fail<int32_t>(DALMON_E_STATE, "call dalmon_finish before asking if it is borderline");
    return m->finish().borderline ? 1 : 0;
  });
}

DALMON_API int32_t dalmon_mark_confirmation(int64_t run, int64_t first_run) {
  return guarded<int32_t>([&]() -> int32_t {
    int32_t err = 0;
    if (run == first_run) return fail<int32_t>(DALMON_E_RANGE, "a run cannot confirm itself");
    auto m = lookup(run, err);
    if (!m) return err;
    auto first = lookup(first_run, err);
    if (!first) return err;
    if (m->finished()) return fail<int32_t>(DALMON_E_STATE, "run already finished");
    if (!first->finished())
      return fail<int32_t>(DALMON_E_STATE,
                           "call dalmon_finish on the run to confirm (" + std::to_string(first_run) + ") first");
    m->mark_confirmation(first->as_confirmed());
    return DALMON_OK;
  });
}

DALMON_API int64_t dalmon_report_text(int64_t run, char* buf, size_t cap) { return report<false>(run, buf, cap); }

DALMON_API int64_t dalmon_report_json(int64_t run, char* buf, size_t cap) { return report<true>(run, buf, cap); }

DALMON_API int32_t dalmon_write_json(int64_t run, const char* path) {
  return guarded<int32_t>([&]() -> int32_t {
    int32_t err = 0;
    auto m = lookup(run, err);
    if (!m) return err;
    if (!path) return fail<int32_t>(DALMON_E_NULL, "path is NULL");
    if (!m->finished()) return fail<int32_t>(DALMON_E_STATE, "call dalmon_finish before writing the report");
    const std::string& json = m->json_report();
    std::FILE* f = std::fopen(path, "we");
    if (!f) return fail<int32_t>(DALMON_E_IO, std::string("cannot open ") + path + ": " + std::strerror(errno));
    size_t w = std::fwrite(json.data(), 1, json.size(), f);
    int werr = errno;
    bool ok = w == json.size();
    if (std::fclose(f) != 0 && ok) {
      ok = false;
      werr = errno;
    }
    if (!ok) return fail<int32_t>(DALMON_E_IO, std::string("cannot write ") + path + ": " + std::strerror(werr));
    return DALMON_OK;
  });
}

DALMON_API int32_t dalmon_end(int64_t run) {
  return guarded<int32_t>([&]() -> int32_t {
    if (!RunRegistry::instance().remove(run))
      return fail<int32_t>(DALMON_E_RUN, "unknown run id " + std::to_string(run));
    return DALMON_OK;
  });
}

DALMON_API int64_t dalmon_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

DALMON_API int64_t dalmon_rss_bytes(void) { return dalmon::LinuxProcessProbe::rss_bytes(); }

}  // extern "C"
