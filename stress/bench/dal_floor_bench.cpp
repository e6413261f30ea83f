// dal_floor_bench: what a reference round trip through dal.h costs, next to
// the floor -- SQLite alone preparing the same SQL on the same database.
//
// The reference request fails in sqlite3_prepare ("no such table: data"), so
// the floor is one failing sqlite3_prepare_v3 (with the DAL's own flags)
// plus reading the error message;
// everything above it (crossing into Go, decoding, building SQL, pooling,
// encoding, copying out) is the DAL's overhead. Both are measured in
// interleaved rounds so machine noise hits them alike; the median round is
// reported. This is a benchmark, not a test: it prints, it never fails on time.
#include <dal.h>
#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../../tests/common/reference.h"
#include "../../tests/common/temp_dir.h"

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "dal_floor_bench: %s\n", what.c_str());
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  long per_round = argc > 1 ? std::atol(argv[1]) : 200000;
  int rounds = argc > 2 ? std::atoi(argv[2]) : 9;
  // Optional third argument: run only "floor", "into" or "alloc" (for
  // instruction-count profiling of one path under callgrind).
  std::string only = argc > 3 ? argv[3] : "";
  if (per_round <= 0 || rounds <= 0) die("usage: dal_floor_bench [queries-per-round] [rounds] [floor|into|alloc]");

  dalkit::TempDir dir("dal-floor");
  int64_t h = dal_open(dir.path().c_str(), nullptr);
  if (h <= 0) die(std::string("dal_open: ") + dal_last_error());
  const auto& req = dalkit::reference::request();
  const auto& want = dalkit::reference::response();
  std::array<uint8_t, 64> buf{};
  // The first query creates the database file in WAL mode.
  if (dal_query_into(h, req.data(), req.size(), buf.data(), buf.size()) != static_cast<int64_t>(want.size())) die("reference query failed");

  sqlite3* db = nullptr;
  if (sqlite3_open_v2(dir.file(dalkit::reference::kDatabase).c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK)
    die("sqlite3_open_v2 failed");
  const char* sql = dalkit::reference::kSql;
  const int sql_len = static_cast<int>(std::strlen(sql));

  volatile size_t sink = 0;
  auto floor_round = [&] {
    auto t0 = Clock::now();
    for (long i = 0; i < per_round; ++i) {
      sqlite3_stmt* st = nullptr;
      if (sqlite3_prepare_v3(db, sql, sql_len, SQLITE_PREPARE_PERSISTENT, &st, nullptr) == SQLITE_OK) die("prepare unexpectedly succeeded");
      sink = sink + std::strlen(sqlite3_errmsg(db));
    }
    return std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / per_round;
  };
  auto into_round = [&] {
    auto t0 = Clock::now();
    for (long i = 0; i < per_round; ++i) {
      if (dal_query_into(h, req.data(), req.size(), buf.data(), buf.size()) != static_cast<int64_t>(want.size()))
        die("bad answer");
    }
    auto ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / per_round;
    if (std::memcmp(buf.data(), want.data(), want.size()) != 0) die("response bytes differ from the reference");
    return ns;
  };
  auto alloc_round = [&] {
    auto t0 = Clock::now();
    for (long i = 0; i < per_round; ++i) {
      void* resp = nullptr;
      if (dal_query(h, req.data(), req.size(), &resp) != static_cast<int64_t>(want.size()) ||
          std::memcmp(resp, want.data(), want.size()) != 0)
        die("dal_query: response bytes differ from the reference");
      dal_free(resp);
    }
    return std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / per_round;
  };

  if (!only.empty()) {
    double ns = only == "floor" ? floor_round() : only == "into" ? into_round() : only == "alloc" ? alloc_round() : -1;
    if (ns < 0) die("unknown path " + only);
    std::printf("dal_floor_bench: %s %.1f ns per round trip (%ld)\n", only.c_str(), ns, per_round);
    return 0;
  }
  floor_round(), into_round(), alloc_round();  // warm-up
  std::vector<double> floor_ns, into_ns, alloc_ns;
  for (int r = 0; r < rounds; ++r) {
    floor_ns.push_back(floor_round());
    into_ns.push_back(into_round());
    alloc_ns.push_back(alloc_round());
  }
  double f = median(floor_ns), b = median(into_ns), a = median(alloc_ns);
  std::printf("dal_floor_bench: %d rounds x %ld reference round trips (median round)\n", rounds, per_round);
  std::printf("  %-46s %9.1f ns\n", "floor: sqlite3_prepare_v3 + errmsg (C)", f);
  std::printf("  %-46s %9.1f ns   %.3fx floor\n", "dal_query_into (caller buffer)", b, b / f);
  std::printf("  %-46s %9.1f ns   %.3fx floor\n", "dal_query + dal_free (DAL buffer)", a, a / f);
  std::printf("  goal: dal_query_into <= 1.25x floor -> %s\n", b / f <= 1.25 ? "met" : "not met");
  sqlite3_close(db);
  dal_close(h);
  return 0;
}
