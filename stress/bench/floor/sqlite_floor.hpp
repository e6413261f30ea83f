// The floor: SQLite alone, in C, doing the SQL the DAL builds for each query,
// with the DAL's connection layout and settings (native/internal/engine/
// conn.go): one reader connection per thread (query_only, as the DAL's
// reader pool), one writer connection shared under a lock (the DAL
// serializes writes the same way), WAL, synchronous=NORMAL, busy timeout
// 5000 ms, double-quoted strings off, opened NOMUTEX.
//
// Each statement is prepared once per connection and kept (reset and
// rebound per query), as a DAL with a statement cache would; a statement
// that fails to prepare ("no such table") is prepared again each time, as
// in the DAL. Every row is stepped and every column's type, value and the
// column names are read, text copied out: the work a result encoder needs,
// not less. What SQLite alone does not do is the DAL's part: decoding the
// request, building SQL, the statement-cache lookup, encoding the answer,
// crossing into Go.
#pragma once

#include <sqlite3.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "workload.hpp"

namespace floorbench {

class FloorConnection;

class SqliteFloor {
 public:
  // Opens the writer and `threads` readers on the database file at path,
  // which must have the workload's schema already.
  SqliteFloor(const std::string& path, const Workload& w, int threads);
  ~SqliteFloor();
  SqliteFloor(const SqliteFloor&) = delete;
  SqliteFloor& operator=(const SqliteFloor&) = delete;

  // Runs q on thread t's reader (a lone SELECT) or on the writer, and checks
  // the answer. False, with *why, for a wrong answer.
  bool run(int t, const Query& q, std::string* why);

 private:
  enum class Kind { Select, Insert, Other };

  bool select(FloorConnection& c, const Query& q, std::string* why);
  bool writes(const Query& q, std::string* why);

  const Workload& w_;
  std::vector<Kind> kinds_;  // per Workload::sql index
  std::vector<std::unique_ptr<FloorConnection>> readers_;
  std::unique_ptr<FloorConnection> writer_;
  std::mutex write_lock_;
};

// Opens path with the DAL's flags and pragmas, and runs the workload's
// schema on it (the setup of either database file).
void create_database(const std::string& path, const std::string& schema);

}  // namespace floorbench
