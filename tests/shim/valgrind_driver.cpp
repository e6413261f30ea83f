// valgrind_driver.cpp -- drives libdalshim.so + the DAL through many queries
// in both ownership modes (plus the error paths) for Valgrind memcheck.
// Usage: dalshim_valgrind_driver [iterations=20000]
// Requests are built with msgpack-c directly (the C++ API is not exported by
// libdalshim.so).  Exit status 0 only if every answer was as expected and no
// shim buffer is left live.
#ifndef MSGPACK_NO_BOOST
#define MSGPACK_NO_BOOST 1
#endif
#include <sqlite3.h>
#include <stdlib.h>
#include <msgpack.hpp>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "dalshim.h"

namespace {

void str(msgpack::packer<msgpack::sbuffer>& pk, const std::string& s) {
  pk.pack_str(static_cast<uint32_t>(s.size()));
  pk.pack_str_body(s.data(), static_cast<uint32_t>(s.size()));
}

// {id, db, commands: [{method: "In", args: [table]}, extra...]}
template <class F>
std::vector<uint8_t> request(uint64_t id, const std::string& db, const std::string& table, int extra, F&& more) {
  msgpack::sbuffer sb;
  msgpack::packer<msgpack::sbuffer> pk(sb);
  pk.pack_map(3);
  str(pk, "id");
  pk.pack_uint64(id);
  str(pk, "db");
  str(pk, db);
  str(pk, "commands");
  pk.pack_array(1 + extra);
  pk.pack_map(2);
  str(pk, "method");
  str(pk, "In");
  str(pk, "args");
  pk.pack_array(1);
  str(pk, table);
  more(pk);
  return std::vector<uint8_t>(sb.data(), sb.data() + sb.size());
}

int failures = 0;
#define CHECK(cond, ...)                                                     \
  do {                                                                       \
    if (!(cond)) {                                                           \
      if (failures++ < 20) {                                                 \
        std::fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
        std::fprintf(stderr, __VA_ARGS__);                                   \
        std::fprintf(stderr, " (%s)\n", dalshim_last_error());               \
      }                                                                      \
    }                                                                        \
  } while (0)

}  // namespace

int main(int argc, char** argv) {
  const int iters = argc > 1 ? std::atoi(argv[1]) : 20000;
  char tmpl[] = "/tmp/dalshim-vg-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return 2;
  const std::string dir = tmpl;
  {
    sqlite3* db = nullptr;
    if (sqlite3_open((dir + "/database.sqlite").c_str(), &db) != SQLITE_OK) return 2;
    std::string sql = "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER, s TEXT);";
    for (int i = 1; i <= 100; ++i)
      sql += "INSERT INTO t (v, s) VALUES (" + std::to_string(i) + ", 'row" + std::to_string(i) + "');";
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) return 2;
    sqlite3_close(db);
  }

  if (dalshim_load(nullptr) != 0) {
    std::fprintf(stderr, "load: %s\n", dalshim_last_error());
    return 2;
  }
  std::printf("DAL: %s (version %d)\n", dalshim_library_path(), dalshim_dal_version());
  const int64_t h = dalshim_open(dir.c_str(), nullptr);
  if (h <= 0) {
    std::fprintf(stderr, "open: %s\n", dalshim_last_error());
    return 2;
  }

  auto ref = request(9, "database.sqlite", "data", 1, [](auto& pk) {
    pk.pack_map(2);
    str(pk, "method");
    str(pk, "Find");
    str(pk, "args");
    pk.pack_array(1);
    pk.pack_map(2);
    str(pk, "a");
    pk.pack_int(1);
    str(pk, "b");
    pk.pack_map(1);
    str(pk, "$gt");
    pk.pack_int(2);
  });
  auto all = request(2, "database.sqlite", "t", 0, [](auto&) {});
  std::vector<uint8_t> buf(64 * 1024);

  for (int i = 0; i < iters; ++i) {
    switch (i % 4) {
      case 0: {  // reference, mode (b)
        int64_t n = dalshim_query_into(h, ref.data(), ref.size(), buf.data(), buf.size());
        CHECK(n == 34, "ref mode b n=%lld", static_cast<long long>(n));
        break;
      }
      case 1: {  // reference, mode (a)
        void* p = dalshim_query(h, ref.data(), ref.size());
        CHECK(p != nullptr, "ref mode a");
        CHECK(dalshim_buffer_size(p) == 34, "size");
        CHECK(dalshim_free(p) == 0, "free");
        break;
      }
      case 2: {  // 100 rows, mode (a)
        void* p = dalshim_query(h, all.data(), all.size());
        CHECK(p != nullptr, "select mode a");
        CHECK(dalshim_buffer_size(p) > 500, "select size %lld", static_cast<long long>(dalshim_buffer_size(p)));
        CHECK(dalshim_free(p) == 0, "free");
        break;
      }
      case 3: {  // write: UPDATE t SET v = i WHERE id = i % 100 + 1, mode (b), too-small first
        auto upd = request(static_cast<uint64_t>(i), "database.sqlite", "t", 2, [&](auto& pk) {
          pk.pack_map(2);
          str(pk, "method");
          str(pk, "Find");
          str(pk, "args");
          pk.pack_array(1);
          pk.pack_map(1);
          str(pk, "id");
          pk.pack_int(i % 100 + 1);
          pk.pack_map(2);
          str(pk, "method");
          str(pk, "Set");
          str(pk, "args");
          pk.pack_array(1);
          pk.pack_map(1);
          str(pk, "v");
          pk.pack_int(i);
        });
        uint8_t tiny[4];
        int64_t n = dalshim_query_into(h, upd.data(), upd.size(), tiny, sizeof tiny);
        CHECK(n > 4, "update n=%lld", static_cast<long long>(n));
        if (n > 4) CHECK(dalshim_take_pending(buf.data(), buf.size()) == n, "take_pending");
        break;
      }
    }
    if (i % 1000 == 0) {  // error paths
      const uint8_t garbage[] = {0xc1, 0x00};
      CHECK(dalshim_query_into(h, garbage, sizeof garbage, buf.data(), buf.size()) == DALSHIM_E_DECODE, "garbage");
      CHECK(dalshim_query(h, garbage, sizeof garbage) == nullptr, "garbage a");
      void* p = dalshim_query(h, ref.data(), ref.size());
      CHECK(dalshim_free(p) == 0, "free");
      CHECK(dalshim_free(p) == DALSHIM_E_DOUBLE_FREE, "double free");
      CHECK(dalshim_free(buf.data()) == DALSHIM_E_FOREIGN_POINTER, "foreign");
      CHECK(dalshim_query_into(987654321, ref.data(), ref.size(), buf.data(), buf.size()) == DALSHIM_E_HANDLE,
            "handle");
      CHECK(dalshim_take_pending(buf.data(), buf.size()) == DALSHIM_E_MISUSE, "misuse");
    }
  }
  int64_t stats[DALSHIM_STAT_TOTAL];
  int32_t ns = dalshim_stats(DALSHIM_STATS_FORCE_GC, stats, DALSHIM_STAT_TOTAL);
  CHECK(ns == DALSHIM_STAT_TOTAL, "stats");
  CHECK(stats[DALSHIM_STAT_BUFFERS_LIVE] == 0, "live shim buffers %lld",
        static_cast<long long>(stats[DALSHIM_STAT_BUFFERS_LIVE]));
  CHECK(stats[DALSHIM_STAT_DAL_BASE + 5] == 0, "live DAL buffers");
  CHECK(dalshim_close(h) == 0, "close");
  CHECK(dalshim_close(h) == DALSHIM_E_CLOSED, "closed");
  std::printf("%d iterations, calls=%lld in=%lld out=%lld errors=%lld, failures=%d\n", iters,
              static_cast<long long>(stats[0]), static_cast<long long>(stats[1]), static_cast<long long>(stats[2]),
              static_cast<long long>(stats[3]), failures);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return failures == 0 ? 0 : 1;
}
