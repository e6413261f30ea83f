// test_util.hpp -- helpers shared by the shim tests.
#pragma once

#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "reference_workload.hpp"
#include "temp_dir.hpp"

namespace shimtest {

inline std::vector<uint8_t> unhex(const std::string& h) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < h.size(); i += 2)
    out.push_back(static_cast<uint8_t>(std::stoi(h.substr(i, 2), nullptr, 16)));
  return out;
}
inline std::string hex(const void* p, size_t n) {
  std::string s;
  char b[3];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(b, sizeof b, "%02x", static_cast<const uint8_t*>(p)[i]);
    s += b;
  }
  return s;
}
inline std::string hex(const std::vector<uint8_t>& v) { return hex(v.data(), v.size()); }

// The reference request (docs/protocol.md), 87 bytes, and its response on a
// database without table "data", 34 bytes, as hex: the bytes are the kit's
// one copy in dal-shim/common/reference_workload.hpp.
inline const std::string kReferenceHex = hex(dalkit::reference::request());
inline const std::string kNoSuchTableHex = hex(dalkit::reference::response());

// The real DAL built by native/ (build/out/libdal.so), or $DAL_LIBRARY.
inline std::string dal_path() {
  if (const char* e = getenv("DAL_LIBRARY"); e && *e) return e;
  return std::string(DALKIT_OUT_DIR) + "/libdal.so";
}
inline bool have_dal() { return std::filesystem::exists(dal_path()); }
#define REQUIRE_DAL() \
  if (!shimtest::have_dal()) GTEST_SKIP() << "no DAL at " << shimtest::dal_path() << " (build native/ first)"

// A fresh temporary directory, removed at destruction (the kit's one).
using TempDir = dalkit::TempDir;

// Run DDL with the system SQLite on dir/db before the DAL opens it (the DAL
// has no CREATE method).
inline void sqlite_exec(const std::string& db_file, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_file.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  std::string msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << msg << " in: " << sql;
}

}  // namespace shimtest
