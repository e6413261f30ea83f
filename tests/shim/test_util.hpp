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

namespace shimtest {

// The reference request (docs/protocol.md), 87 bytes, and its response on a
// database without table "data", 34 bytes.
inline const char* kReferenceHex =
    "83a2696409a26462af64617461626173652e73716c697465a8636f6d6d616e647392"
    "82a66d6574686f64a2496ea46172677391a46461746182a66d6574686f64a446696e"
    "64a4617267739182a16101a16281a324677402";
inline const char* kNoSuchTableHex = "84a16909a2726100a26c6900a165b36e6f2073756368207461626c653a2064617461";

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

// The real DAL built by native/ (build/out/libdal.so), or $DAL_LIBRARY.
inline std::string dal_path() {
  if (const char* e = getenv("DAL_LIBRARY"); e && *e) return e;
  return std::string(DALKIT_OUT_DIR) + "/libdal.so";
}
inline bool have_dal() { return std::filesystem::exists(dal_path()); }
#define REQUIRE_DAL() \
  if (!shimtest::have_dal()) GTEST_SKIP() << "no DAL at " << shimtest::dal_path() << " (build native/ first)"

// A fresh temporary directory, removed at destruction.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "dalshim-test-XXXXXX").string();
    char* p = mkdtemp(tmpl.data());
    if (p == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = p;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

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
