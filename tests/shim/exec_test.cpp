// exec_test.cpp -- dalshim_exec and Database::exec_sql: schema SQL through
// the shim to dal_exec (real DAL), the shim's error conventions on it, and
// a dal.h 1.0 library without dal_exec (fake DAL).
//
// Linked with dalshim_core alone, so the C ABI and the C++ API share one
// copy of the shim's state.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "dal.h"
#include "dalshim.h"
#include "dalshim.hpp"
#include "test_util.hpp"

using namespace dalshim;

namespace {

int32_t exec(int64_t h, const std::string& db, const std::string& sql) {
  return dalshim_exec(h, db.data(), db.size(), sql.data(), sql.size());
}

class ShimExec : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_DAL();
    auto lib = Library::load_default(shimtest::dal_path());
    ASSERT_TRUE(lib.ok()) << lib.error().message();
    auto db = Database::open(dir_.path());
    ASSERT_TRUE(db.ok()) << db.error().message();
    db_ = std::move(*db);
  }
  shimtest::TempDir dir_;
  Database db_;
};

}  // namespace

TEST_F(ShimExec, CApiCreatesSchemaThatQueriesUse) {
  ASSERT_EQ(exec(db_.handle(), "database.sqlite",
                 "CREATE TABLE t(id INTEGER PRIMARY KEY, v INT); INSERT INTO t(v) VALUES (5)"),
            DALSHIM_OK)
      << dalshim_last_error();
  auto rows = db_.rows(Query().In("t").Fields({"v"}));
  ASSERT_TRUE(rows.ok()) << rows.error().message();
  ASSERT_EQ(rows->rows.size(), 1u);
  EXPECT_EQ(rows->rows[0][0].as_int(), 5);
}

TEST_F(ShimExec, CApiErrorsKeepTheDalsCodeAndMessage) {
  const int64_t calls = dalshim_stat(0, DALSHIM_STAT_CALLS);
  const int64_t errors = dalshim_stat(0, DALSHIM_STAT_ERRORS);
  EXPECT_EQ(exec(db_.handle(), "database.sqlite", "CREATE TABLE (x)"), DAL_E_DATABASE);
  EXPECT_EQ(dalshim_last_error_code(), DAL_E_DATABASE);
  EXPECT_NE(std::string(dalshim_last_error()).find("syntax error"), std::string::npos) << dalshim_last_error();
  EXPECT_EQ(exec(db_.handle(), "../up", "CREATE TABLE t(x)"), DAL_E_REQUEST);
  EXPECT_NE(std::string(dalshim_last_error()).find("invalid db name"), std::string::npos) << dalshim_last_error();
  EXPECT_EQ(dalshim_exec(db_.handle(), nullptr, 0, "SELECT 1", 8), DAL_E_NULL);
  EXPECT_EQ(dalshim_exec(db_.handle(), "a.db", 4, nullptr, 0), DAL_E_NULL);
  // Failures are counted as errors; exec is not a query call.
  EXPECT_EQ(dalshim_stat(0, DALSHIM_STAT_ERRORS), errors + 4);
  EXPECT_EQ(dalshim_stat(0, DALSHIM_STAT_CALLS), calls);
}

TEST_F(ShimExec, CApiHonoursLengths) {
  const char db[] = "x.dbJUNK";
  const char sql[] = "CREATE TABLE t(x)JUNK";
  ASSERT_EQ(dalshim_exec(db_.handle(), db, 4, sql, 17), DALSHIM_OK) << dalshim_last_error();
  EXPECT_TRUE(std::filesystem::exists(dir_.file("x.db")));
  EXPECT_FALSE(std::filesystem::exists(dir_.file("x.dbJUNK")));
}

TEST_F(ShimExec, ClosedHandleIsClosedAndUnknownIsHandle) {
  auto other = Database::open(dir_.path());
  ASSERT_TRUE(other.ok()) << other.error().message();
  const int64_t h = other->handle();
  ASSERT_TRUE(other->close().ok());
  EXPECT_EQ(exec(h, "database.sqlite", "CREATE TABLE t(x)"), DALSHIM_E_CLOSED);
  EXPECT_NE(std::string(dalshim_last_error()).find("is closed"), std::string::npos) << dalshim_last_error();
  auto st = other->exec_sql("CREATE TABLE t(x)");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), DALSHIM_E_CLOSED);
  EXPECT_EQ(exec(h + 1000000, "database.sqlite", "CREATE TABLE t(x)"), DAL_E_HANDLE);
}

TEST_F(ShimExec, CppApiUsesTheDefaultDbOrANamedOne) {
  ASSERT_TRUE(db_.exec_sql("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)").ok());
  db_.use("other.db");
  ASSERT_TRUE(db_.exec_sql("CREATE TABLE u(y)").ok());
  ASSERT_TRUE(db_.exec_sql("database.sqlite", "INSERT INTO t VALUES (3)").ok());
  db_.use("database.sqlite");
  auto rows = db_.rows(Query().In("t").Fields({"count(*)"}));
  ASSERT_TRUE(rows.ok()) << rows.error().message();
  EXPECT_EQ(rows->rows[0][0].as_int(), 3);
  auto st = db_.exec_sql("other.db", "INSERT INTO missing VALUES (1)");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), DAL_E_DATABASE);
  EXPECT_NE(st.error().message().find("no such table: missing"), std::string::npos) << st.error().message();
  // An empty name gets the DAL's answer (invalid name), not DAL_E_NULL.
  auto empty = db_.exec_sql("", "SELECT 1");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code(), DAL_E_REQUEST);
}

TEST(ShimExecOldDal, LibraryWithoutDalExecSaysSo) {
  auto lib = Library::load(std::string(FAKE_DAL_DIR) + "/libfakedal_ok.so");
  ASSERT_TRUE(lib.ok()) << lib.error().message();
  EXPECT_EQ((*lib)->exec, nullptr);  // a dal.h 1.0 library still loads
  auto db = Database::open("/", "", *lib);
  ASSERT_TRUE(db.ok()) << db.error().message();
  auto st = db->exec_sql("CREATE TABLE t(x)");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code(), DALSHIM_E_LOAD);
  EXPECT_NE(st.error().message().find("dal_exec"), std::string::npos) << st.error().message();
}
