// fd_limit_check -- issue 10, defect 2: requests alone must not exhaust the
// host's file descriptors.  Run under a low descriptor limit (ctest runs it
// as `sh -c 'ulimit -n 256 && exec fd_limit_check'`): it queries 5,000
// distinct db names through one handle with the default limits, half of
// them writes (a writer and a reader connection each), then checks that the
// process can still open files and that the first database still answers.
// Exit 0 on success; 1 with a message on the first failure.
#include <dal.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <sqlite3.h>

#include <msgpack.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace {

using Bytes = std::vector<char>;

// {id, db, commands: [In t, Insert {a: 1}]} or [In t, Fields [count(*)]]
Bytes request(const std::string& db, bool write) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_map(3);
  pk.pack("id");
  pk.pack(1);
  pk.pack("db");
  pk.pack(db);
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
  if (write) {
    pk.pack("Insert");
    pk.pack("args");
    pk.pack_array(1);
    pk.pack_map(1);
    pk.pack("a");
    pk.pack(1);
  } else {
    pk.pack("Fields");
    pk.pack("args");
    pk.pack_array(1);
    pk.pack("count(*)");
  }
  return Bytes(buf.data(), buf.data() + buf.size());
}

int fail(const std::string& what) {
  std::fprintf(stderr, "fd_limit_check: %s\n", what.c_str());
  return 1;
}

// Runs req and returns the decoded response map, or an empty map with msg set.
bool run(int64_t h, const Bytes& req, msgpack::object_handle& out, std::string& msg) {
  void* resp = nullptr;
  int64_t n = dal_query(h, req.data(), req.size(), &resp);
  if (n < 0) {
    msg = std::string(dal_code_name(static_cast<int32_t>(n))) + ": " + dal_last_error();
    return false;
  }
  out = msgpack::unpack(static_cast<const char*>(resp), static_cast<size_t>(n));
  dal_free(resp);
  return true;
}

}  // namespace

int main() {
  rlimit rl{};
  getrlimit(RLIMIT_NOFILE, &rl);
  std::printf("fd_limit_check: RLIMIT_NOFILE = %llu\n", static_cast<unsigned long long>(rl.rlim_cur));
  dalkit::TempDir dir("dal-fdlimit");
  // Default max_databases (64) and max_readers; synchronous=off only because
  // this checks descriptors, not durability, and creating 5,000 files with
  // fsyncs takes minutes on a slow disk.
  int64_t h = dal_open(dir.path().c_str(), "synchronous=off");
  if (h <= 0) return fail(std::string("dal_open: ") + dal_last_error());

  msgpack::object_handle resp;
  std::string msg;
  // The first database has a table and a row, made with SQL the DAL has no
  // method for. It is used first, so it is the first one closed to make room.
  {
    sqlite3* db = nullptr;
    if (sqlite3_open(dir.file("first.db").c_str(), &db) != SQLITE_OK ||
        sqlite3_exec(db, "CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (42);", nullptr, nullptr, nullptr) !=
            SQLITE_OK)
      return fail("cannot create first.db");
    sqlite3_close(db);
  }
  auto first_count = [&]() -> int64_t {
    if (!run(h, request("first.db", false), resp, msg)) return -1;
    auto m = resp.get().as<std::map<std::string, msgpack::object>>();
    if (m.count("e")) return -1;
    return m.at("r").via.array.ptr[0].via.array.ptr[0].as<int64_t>();
  };
  if (first_count() != 1) return fail("first.db before: " + msg);
  constexpr int kNames = 5000;
  for (int i = 0; i < kNames; ++i) {
    std::string name = "db" + std::to_string(i) + ".sqlite";
    if (!run(h, request(name, i % 2 == 1), resp, msg)) return fail("query " + name + ": " + msg);
    auto m = resp.get().as<std::map<std::string, msgpack::object>>();
    // No table "t" exists: every answer must be SQLite's "no such table",
    // never a failure to open the file (EMFILE would show up here).
    if (!m.count("e") || m.at("e").as<std::string>().find("no such table") == std::string::npos)
      return fail("query " + name + ": unexpected response");
  }
  // The host can still open files.
  std::vector<int> fds;
  for (int i = 0; i < 16; ++i) {
    int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fail("open(/dev/null) failed after the queries: the process is out of descriptors");
    fds.push_back(fd);
  }
  for (int fd : fds) close(fd);
  // The first database still answers, with its data.
  if (int64_t n = first_count(); n != 1)
    return fail("first.db after the queries: count " + std::to_string(n) + " " + msg);
  if (dal_close(h) != DAL_OK) return fail(std::string("dal_close: ") + dal_last_error());
  std::printf("fd_limit_check: %d distinct databases queried; descriptors still available\n", kNames);
  return 0;
}
