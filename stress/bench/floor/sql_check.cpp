// dal_floor_sql_check: the floor must run the SQL the DAL builds, text for
// text. This program interposes sqlite3_prepare_v3 (the executable exports
// its own definition, which the dynamic linker binds libdal.so's calls to),
// sends each workload's seed and two cycles of two threads through
// dal_query_into, and compares the SQL texts the DAL prepared with the
// workload's list in floor/workload.cpp: the same set, or it fails and
// prints both. The transaction statements are not in that list: the floor
// prepares all three on its writer (FloorConnection), the DAL those a
// workload uses (native/internal/sqlite, Conn.ExecTx), with the same text.
// (The PRAGMAs go through sqlite3_exec, which prepares inside SQLite and is
// not seen here.)
#include <dal.h>
#include <dlfcn.h>
#include <sqlite3.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "dal_path.hpp"
#include "sqlite_floor.hpp"
#include "temp_dir.hpp"
#include "workload.hpp"

namespace {

std::mutex captured_lock;
std::set<std::string>* captured = nullptr;  // non-null while capturing

const std::set<std::string> kTransactionStatements = {"BEGIN IMMEDIATE", "COMMIT", "ROLLBACK"};

}  // namespace

extern "C" int sqlite3_prepare_v3(sqlite3* db, const char* sql, int n, unsigned int flags, sqlite3_stmt** stmt,
                                  const char** tail) {
  using Prepare = int (*)(sqlite3*, const char*, int, unsigned int, sqlite3_stmt**, const char**);
  static const auto real = reinterpret_cast<Prepare>(dlsym(RTLD_NEXT, "sqlite3_prepare_v3"));
  if (!real) {
    std::fprintf(stderr, "dal_floor_sql_check: no sqlite3_prepare_v3 after this executable\n");
    return SQLITE_ERROR;
  }
  {
    std::lock_guard lock(captured_lock);
    // SQLite reads n bytes or up to a NUL, whichever comes first.
    if (captured && sql) captured->emplace(sql, n < 0 ? std::strlen(sql) : strnlen(sql, static_cast<size_t>(n)));
  }
  return real(db, sql, n, flags, stmt, tail);
}

int main() {
  using namespace floorbench;
  int failures = 0;
  for (const char* name : {"reference", "rows", "write", "mixed"}) {
    const Workload& w = *find_workload(name);
    std::set<std::string> seen;
    try {
      dalkit::TempDir dir("dal-floor-sql");
      DalPath dal(dir.path());
      create_database(dir.file(w.db), w.schema);
      std::vector<uint8_t> buf(64 * 1024);
      std::string why;
      {
        std::lock_guard lock(captured_lock);
        captured = &seen;
      }
      for (const Query& q : w.seed())
        if (!dal.run(q, buf, &why)) throw std::runtime_error("seed: " + why);
      for (int t = 0; t < 2; ++t)
        for (uint64_t n = 0; n < 2 * static_cast<uint64_t>(w.steps); ++n)
          if (!dal.run(w.query(t, n), buf, &why)) throw std::runtime_error("query: " + why);
      std::lock_guard lock(captured_lock);
      captured = nullptr;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "dal_floor_sql_check: %s: %s\n", name, e.what());
      return 2;
    }
    std::erase_if(seen, [](const std::string& s) { return kTransactionStatements.count(s) > 0; });
    const std::set<std::string> want(w.sql.begin(), w.sql.end());
    if (seen == want) {
      std::printf("%s: the DAL prepared the floor's %zu SQL texts, no other\n", name, want.size());
      continue;
    }
    ++failures;
    std::printf("%s: the DAL's SQL differs from the floor's\n", name);
    for (const auto& s : seen)
      if (!want.count(s)) std::printf("  only the DAL: %s\n", s.c_str());
    for (const auto& s : want)
      if (!seen.count(s)) std::printf("  only the floor: %s\n", s.c_str());
  }
  return failures ? 1 : 0;
}
