// sqlite_config_check -- the process-wide SQLite configuration the DAL sets
// (multi-thread, memory statistics off, a counting allocator), and its
// fallback when the host initialized the same libsqlite3 first.
//
//   sqlite_config_check dal-first    the DAL configures SQLite
//   sqlite_config_check host-first   the host calls sqlite3_initialize() and
//                                    opens a database before dal_open
//
// Either way the DAL must answer queries, report the configuration in
// effect in dal_version_string(), and report SQLite's memory in dal_stats:
// from its counting allocator, or from sqlite3_memory_used() when the host
// came first (then both figures must be equal). Exit 0 on success; 1 with a
// message on the first failure.
#include <dal.h>
#include <sqlite3.h>

#include <msgpack.hpp>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace {

using Bytes = std::vector<char>;

int fail(const std::string& what) {
  std::fprintf(stderr, "sqlite_config_check: %s\n", what.c_str());
  return 1;
}

// {id, db: "c.db", commands: [In t, Insert {a: i}]} or [In t, Fields [count(*)]]
Bytes request(bool insert, int i) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_map(3);
  pk.pack("id");
  pk.pack(i);
  pk.pack("db");
  pk.pack("c.db");
  pk.pack("commands");
  pk.pack_array(2);
  pk.pack_map(2);
  pk.pack("method");
  pk.pack("In");
  pk.pack("args");
  pk.pack_array(1);
  pk.pack("t");
  pk.pack_map(2);
  pk.pack("method");
  if (insert) {
    pk.pack("Insert");
    pk.pack("args");
    pk.pack_array(1);
    pk.pack_map(1);
    pk.pack("a");
    pk.pack(i);
  } else {
    pk.pack("Fields");
    pk.pack("args");
    pk.pack_array(1);
    pk.pack("count(*)");
  }
  return Bytes(buf.data(), buf.data() + buf.size());
}

// Runs req; returns the response map's "r" rows or "ra", or -1 with msg set.
int64_t run(int64_t h, const Bytes& req, bool count, std::string& msg) {
  void* resp = nullptr;
  int64_t n = dal_query(h, req.data(), req.size(), &resp);
  if (n < 0) {
    msg = std::string(dal_code_name(static_cast<int32_t>(n))) + ": " + dal_last_error();
    return -1;
  }
  msgpack::object_handle oh = msgpack::unpack(static_cast<const char*>(resp), static_cast<size_t>(n));
  dal_free(resp);
  auto m = oh.get().as<std::map<std::string, msgpack::object>>();
  if (m.count("e")) {
    msg = "error response: " + m["e"].as<std::string>();
    return -1;
  }
  if (!count) return m["ra"].as<int64_t>();
  return m["r"].as<std::vector<std::vector<int64_t>>>().at(0).at(0);
}

bool stats(int64_t* used, int64_t* peak) {
  int64_t v[DAL_STAT_SQLITE_MEMORY_PEAK + 1];
  if (dal_stats(0, v, DAL_STAT_SQLITE_MEMORY_PEAK + 1) != DAL_STAT_SQLITE_MEMORY_PEAK + 1) return false;
  *used = v[DAL_STAT_SQLITE_MEMORY_USED];
  *peak = v[DAL_STAT_SQLITE_MEMORY_PEAK];
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const bool host_first = argc == 2 && std::strcmp(argv[1], "host-first") == 0;
  if (argc != 2 || (!host_first && std::strcmp(argv[1], "dal-first") != 0))
    return fail("usage: sqlite_config_check dal-first|host-first");
  dalkit::TempDir dir("dal-sqlite-config");

  sqlite3* host = nullptr;  // the host's own connection, open across the run
  if (host_first) {
    if (sqlite3_initialize() != SQLITE_OK) return fail("sqlite3_initialize");
    if (sqlite3_open(dir.file("c.db").c_str(), &host) != SQLITE_OK) return fail("host sqlite3_open");
  }
  int64_t h = dal_open(dir.path().c_str(), "synchronous=off");
  if (h <= 0) return fail(std::string("dal_open: ") + dal_last_error());
  if (!host_first && sqlite3_open(dir.file("c.db").c_str(), &host) != SQLITE_OK) return fail("host sqlite3_open");
  if (sqlite3_exec(host, "CREATE TABLE t (a INTEGER)", nullptr, nullptr, nullptr) != SQLITE_OK)
    return fail(std::string("CREATE TABLE: ") + sqlite3_errmsg(host));

  const std::string version = dal_version_string();
  std::printf("sqlite_config_check %s: %s\n", argv[1], version.c_str());
  const char* want =
      host_first ? "sqlite config: initialized before the DAL, configuration kept, memory from sqlite3_memory_used"
                 : "sqlite config: multi-thread, memstatus off, counting allocator";
  if (version.find(want) == std::string::npos) return fail("version string lacks \"" + std::string(want) + "\"");

  std::string msg;
  for (int i = 1; i <= 200; i++)
    if (run(h, request(true, i), false, msg) != 1) return fail("insert " + std::to_string(i) + ": " + msg);
  const int64_t rows = run(h, request(false, 0), true, msg);
  if (rows != 200) return fail("count(*) is " + std::to_string(rows) + ", want 200 " + msg);

  int64_t used = 0, peak = 0;
  if (!stats(&used, &peak)) return fail(std::string("dal_stats: ") + dal_last_error());
  if (used <= 0 || peak < used)
    return fail("SQLite memory " + std::to_string(used) + " bytes, peak " + std::to_string(peak));
  if (host_first) {
    // One counter, SQLite's own, read by the DAL and by the host alike.
    if (used != sqlite3_memory_used())
      return fail("dal_stats says " + std::to_string(used) + " bytes, sqlite3_memory_used() " +
                  std::to_string(sqlite3_memory_used()));
  } else {
    // Statistics are off, so SQLite's own figure stays 0; the DAL's counter
    // sees every SQLite allocation in the process, the host's included.
    if (sqlite3_memory_used() != 0) return fail("memory statistics are on: " + std::to_string(sqlite3_memory_used()));
    sqlite3* more = nullptr;
    if (sqlite3_open(":memory:", &more) != SQLITE_OK ||
        sqlite3_exec(more, "CREATE TABLE x (b TEXT); INSERT INTO x VALUES (zeroblob(100000))", nullptr, nullptr,
                     nullptr) != SQLITE_OK)
      return fail("host :memory: database");
    int64_t with = 0, p2 = 0;
    stats(&with, &p2);
    sqlite3_close(more);
    int64_t after = 0, p3 = 0;
    stats(&after, &p3);
    if (with < used + 100000 || after >= with || p3 < with)
      return fail("host database: " + std::to_string(used) + " -> " + std::to_string(with) + " -> " +
                  std::to_string(after) + " bytes (peak " + std::to_string(p3) + ")");
  }
  if (dal_close(h) != 0) return fail(std::string("dal_close: ") + dal_last_error());
  sqlite3_close(host);
  std::printf("sqlite_config_check %s: ok, SQLite memory %lld bytes (peak %lld)\n", argv[1],
              static_cast<long long>(used), static_cast<long long>(peak));
  return 0;
}
