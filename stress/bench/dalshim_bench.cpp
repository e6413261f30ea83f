// dalshim_bench.cpp -- dalshim_bench: ns per reference round trip (87-byte request,
// 34-byte "no such table" response), three ways in one run:
//
//   shim   libdalshim.so's C ABI, dalshim_query_into, pre-encoded bytes
//          (dlopen()ed and dlsym()ed, exactly as an FFI does)
//   c++    C++ API: Query builder encode + run (mode b) + decode
//   direct dal.h's dal_query_into on libdal.so, pre-encoded bytes
//
// The three are interleaved in rounds (each round runs every method for
// `iters` calls) so that drift (frequency scaling, GC, cache state) hits all
// of them alike, and the order rotates every round; the table reports the
// median and best round.
//
// Usage: dalshim_bench [rounds=15] [iters=20000]
#include <dlfcn.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "dal.h"
#include "dalshim.hpp"
#include "reference_workload.hpp"
#include "temp_dir.hpp"

namespace {

template <class F>
F sym(void* h, const char* name) {
  void* p = dlsym(h, name);
  if (!p) {
    std::fprintf(stderr, "missing %s: %s\n", name, dlerror());
    std::exit(2);
  }
  return reinterpret_cast<F>(p);
}

double ns_per(std::chrono::steady_clock::duration d, int n) {
  return std::chrono::duration<double, std::nano>(d).count() / n;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 15;
  const int iters = argc > 2 ? std::atoi(argv[2]) : 20000;
  const std::string shim_path = std::string(DALKIT_OUT_DIR) + "/libdalshim.so";

  // shim, as an FFI sees it; its loader resolves the DAL (the path given to
  // dalshim_load, $DAL_LIBRARY, or libdal.so beside libdalshim.so), and the
  // other two ways use the library it chose.
  void* shim = dlopen(shim_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!shim) {
    std::fprintf(stderr, "%s\n", dlerror());
    return 2;
  }
  auto s_load = sym<int32_t (*)(const char*)>(shim, "dalshim_load");
  auto s_library_path = sym<const char* (*)()>(shim, "dalshim_library_path");
  auto s_open = sym<int64_t (*)(const char*, const char*)>(shim, "dalshim_open");
  auto s_query_into = sym<int64_t (*)(int64_t, const void*, size_t, void*, size_t)>(shim, "dalshim_query_into");
  auto s_last_error = sym<const char* (*)()>(shim, "dalshim_last_error");
  if (s_load(nullptr) != 0) {
    std::fprintf(stderr, "%s\n", s_last_error());
    return 2;
  }
  const std::string dal_path = s_library_path();

  // direct
  void* dal = dlopen(dal_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!dal) {
    std::fprintf(stderr, "%s\n", dlerror());
    return 2;
  }
  auto d_open = sym<int64_t (*)(const char*, const char*)>(dal, "dal_open");
  auto d_query_into = sym<int64_t (*)(int64_t, const void*, size_t, void*, size_t)>(dal, "dal_query_into");
  // C++ API (dalshim_core linked in; dlopen() maps the same libdal.so)
  auto lib = dalshim::Library::load_default(dal_path);
  if (!lib) {
    std::fprintf(stderr, "%s\n", lib.error().message().c_str());
    return 2;
  }

  dalkit::TempDir data_dir("dalshim-bench");
  const std::string& dir = data_dir.path();
  int64_t hd = d_open(dir.c_str(), nullptr);
  int64_t hs = s_open(dir.c_str(), nullptr);
  auto db = dalshim::Database::open(dir);
  if (hd <= 0 || hs <= 0 || !db) {
    std::fprintf(stderr, "open failed\n");
    return 2;
  }

  const auto& ref = dalkit::reference::request();
  uint8_t buf[256];
  auto check = [&](int64_t n) {
    if (n != 34) {
      std::fprintf(stderr, "unexpected response length %lld\n", static_cast<long long>(n));
      std::exit(1);
    }
  };
  std::vector<double> t_shim, t_cpp, t_direct;
  using clk = std::chrono::steady_clock;
  auto run_shim = [&] {
    for (int i = 0; i < iters; ++i) check(s_query_into(hs, ref.data(), ref.size(), buf, sizeof buf));
  };
  auto run_cpp = [&] {
    for (int i = 0; i < iters; ++i) {
      auto q = db->In("data").Id(9).Find({{"a", 1}, {"b", {{"$gt", 2}}}});
      auto res = q.run();
      if (res.ok() || res.error().code() != DALSHIM_E_SQL) {
        std::fprintf(stderr, "unexpected C++ result\n");
        std::exit(1);
      }
    }
  };
  auto run_direct = [&] {
    for (int i = 0; i < iters; ++i) check(d_query_into(hd, ref.data(), ref.size(), buf, sizeof buf));
  };
  struct Way {
    std::function<void()> fn;
    std::vector<double>* out;
  };
  Way ways[3] = {{run_shim, &t_shim}, {run_cpp, &t_cpp}, {run_direct, &t_direct}};
  for (int r = -1; r < rounds; ++r) {  // round -1 warms up
    for (int k = 0; k < 3; ++k) {
      Way& w = ways[(r + 3 + k) % 3];  // rotate the order every round
      auto t0 = clk::now();
      w.fn();
      auto t1 = clk::now();
      if (r >= 0) w.out->push_back(ns_per(t1 - t0, iters));
    }
  }
  auto med = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  auto best = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
  std::printf("reference round trip (87 B request, 34 B response), %d rounds x %d calls, interleaved\n", rounds, iters);
  std::printf("%-34s %12s %12s %10s\n", "path", "median ns", "best ns", "vs direct");
  const double md = med(t_direct);
  std::printf("%-34s %12.0f %12.0f %9.3fx\n", "direct dal_query_into", md, best(t_direct), 1.0);
  std::printf("%-34s %12.0f %12.0f %9.3fx\n", "shim dalshim_query_into (C ABI)", med(t_shim), best(t_shim),
              med(t_shim) / md);
  std::printf("%-34s %12.0f %12.0f %9.3fx\n", "C++ API (build+encode+run+decode)", med(t_cpp), best(t_cpp),
              med(t_cpp) / md);
  std::printf("shim overhead: %+.1f ns per call (median)\n", med(t_shim) - md);
  return 0;
}
