// durability_check -- issue 10: an acknowledged write survives the death of
// the process that made it.
//
// Without arguments (as ctest runs it): for synchronous=normal and =full, 5
// rounds each, start a child copy of this program that inserts rows through
// libdal.so one request at a time and prints "ack <id>" after each response
// that reports the row inserted; after a random number of acknowledgements
// and a random pause, SIGKILL the child mid-run.  Then open the database
// with SQLite directly: PRAGMA integrity_check must say "ok" and every
// acknowledged id must be present.  Exit 0 on success, 1 with a message.
//
// `durability_check child <dir> <synchronous>` is the child.
//
// Process death (SIGKILL) is what this tests: the OS keeps every write(2)
// the process made, so both settings must pass.  Power loss is different;
// docs/durability.md says what each setting promises there.
#include <dal.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <msgpack.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "temp_dir.hpp"

namespace {

constexpr const char* kDb = "durable.db";

int fail(const std::string& what) {
  std::fprintf(stderr, "durability_check: %s\n", what.c_str());
  return 1;
}

// {id, db, commands: [In rows, Insert {id, payload}]}
std::vector<char> insert_request(int64_t id) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_map(3);
  pk.pack("id");
  pk.pack(id);
  pk.pack("db");
  pk.pack(kDb);
  pk.pack("commands");
  pk.pack_array(2);
  pk.pack_map(2);
  pk.pack("method");
  pk.pack("In");
  pk.pack("args");
  pk.pack_array(1);
  pk.pack("rows");
  pk.pack_map(2);
  pk.pack("method");
  pk.pack("Insert");
  pk.pack("args");
  pk.pack_array(1);
  pk.pack_map(2);
  pk.pack("id");
  pk.pack(id);
  pk.pack("payload");
  pk.pack(std::string(100, 'x'));
  return std::vector<char>(buf.data(), buf.data() + buf.size());
}

// The child: insert ids 1, 2, 3, ... until killed, acknowledging each.
int child(const char* dir, const char* sync) {
  std::string opts = std::string("synchronous=") + sync;
  int64_t h = dal_open(dir, opts.c_str());
  if (h <= 0) return fail(std::string("child dal_open: ") + dal_last_error());
  std::vector<char> resp(256);
  for (int64_t id = 1;; ++id) {
    auto req = insert_request(id);
    int64_t n = dal_query_into(h, req.data(), req.size(), resp.data(), resp.size());
    if (n < 0 || static_cast<size_t>(n) > resp.size()) return fail(std::string("child query: ") + dal_last_error());
    auto m = msgpack::unpack(resp.data(), static_cast<size_t>(n)).get().as<std::map<std::string, msgpack::object>>();
    if (m.count("e") || m.at("ra").as<int64_t>() != 1) return fail("child: insert not acknowledged");
    // The row is committed: tell the parent, unbuffered.
    char line[32];
    int len = std::snprintf(line, sizeof line, "ack %lld\n", static_cast<long long>(id));
    if (write(STDOUT_FILENO, line, static_cast<size_t>(len)) != len) return 1;
  }
}

// One round: run a child, kill it, check the database.
int run_round(const std::string& self, const char* sync, int round_no, std::mt19937& rng) {
  dalkit::TempDir dir("dal-durability");
  {
    sqlite3* db = nullptr;
    if (sqlite3_open(dir.file(kDb).c_str(), &db) != SQLITE_OK ||
        sqlite3_exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE rows (id INTEGER PRIMARY KEY, payload TEXT)", nullptr,
                     nullptr, nullptr) != SQLITE_OK)
      return fail("cannot create the table");
    sqlite3_close(db);
  }
  int out[2];
  if (pipe(out) != 0) return fail("pipe");
  pid_t pid = fork();
  if (pid < 0) return fail("fork");
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    execl(self.c_str(), self.c_str(), "child", dir.path().c_str(), sync, static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  FILE* in = fdopen(out[0], "r");
  const int kill_after = std::uniform_int_distribution<int>(20, 400)(rng);
  const int pause_us = std::uniform_int_distribution<int>(0, 3000)(rng);
  std::set<int64_t> acked;
  char line[64];
  bool killed = false;
  while (std::fgets(line, sizeof line, in)) {
    long long id = 0;
    if (std::sscanf(line, "ack %lld", &id) != 1) return fail(std::string("bad line from child: ") + line);
    acked.insert(id);
    if (!killed && static_cast<int>(acked.size()) >= kill_after) {
      std::this_thread::sleep_for(std::chrono::microseconds(pause_us));
      kill(pid, SIGKILL);  // mid-run: the child is between or inside requests
      killed = true;
    }
    // Acknowledgements already in the pipe when the child died still count.
  }
  std::fclose(in);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!killed) return fail("child ended before it was killed (status " + std::to_string(status) + ")");
  if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) return fail("child did not die of SIGKILL");

  // Reopen as a new process would: SQLite recovers the WAL.
  sqlite3* db = nullptr;
  if (sqlite3_open(dir.file(kDb).c_str(), &db) != SQLITE_OK) return fail("reopen failed");
  std::string integrity;
  sqlite3_exec(
      db, "PRAGMA integrity_check",
      [](void* p, int, char** v, char**) {
        *static_cast<std::string*>(p) += v[0] ? v[0] : "NULL";
        return 0;
      },
      &integrity, nullptr);
  std::set<int64_t> present;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "SELECT id FROM rows", -1, &st, nullptr);
  while (sqlite3_step(st) == SQLITE_ROW) present.insert(sqlite3_column_int64(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(db);
  if (integrity != "ok") return fail("integrity_check: " + integrity);
  for (int64_t id : acked)
    if (!present.count(id)) return fail("acknowledged row " + std::to_string(id) + " is missing");
  std::printf("synchronous=%s round %d: %zu acknowledged, %zu present, integrity ok\n", sync, round_no, acked.size(),
              present.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "child") == 0) return child(argv[2], argv[3]);
  if (argc != 1) return fail("usage: durability_check   (the child mode is internal)");
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return fail("readlink /proc/self/exe");
  self[n] = 0;
  std::mt19937 rng(std::random_device{}());
  for (const char* sync : {"normal", "full"})
    for (int r = 1; r <= 5; ++r)
      if (int rc = run_round(self, sync, r, rng); rc != 0) return rc;
  return 0;
}
