// GoogleTest of dal_exec (native/include/dal.h, EXEC): the administrative
// entry point that runs schema SQL on a handle's writer connection.
#include <dal.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "abi_helpers.h"

namespace {

using namespace dalabi;

class DalExec : public DalAbi {
 protected:
  int32_t exec(const std::string& db, const std::string& sql) {
    return dal_exec(handle_, db.data(), db.size(), sql.data(), sql.size());
  }
  std::string last_error() const { return dal_last_error(); }
};

TEST_F(DalExec, CreatesSchemaThatQueriesThenUse) {
  ASSERT_EQ(exec("app.db",
                 "CREATE TABLE t(id INTEGER PRIMARY KEY, v INT); CREATE INDEX t_v ON t(v);"
                 "INSERT INTO t(v) VALUES (1),(2),(3)"),
            DAL_OK)
      << last_error();
  // The table is visible to the query protocol, on a reader connection too.
  EXPECT_EQ(count_rows("app.db"), 3);
  // Result rows of a SELECT are discarded, not an error.
  EXPECT_EQ(exec("app.db", "SELECT * FROM t"), DAL_OK) << last_error();
  EXPECT_TRUE(std::filesystem::exists(dir_.file("app.db")));
}

TEST_F(DalExec, SqlErrorIsDatabaseErrorWithSqliteMessage) {
  ASSERT_EQ(exec("app.db", "CREATE TABLE t(x)"), DAL_OK) << last_error();
  EXPECT_EQ(exec("app.db", "CREATE TABLE t(x)"), DAL_E_DATABASE);
  EXPECT_EQ(dal_last_error_code(), DAL_E_DATABASE);
  EXPECT_NE(last_error().find("table t already exists"), std::string::npos) << last_error();
  EXPECT_EQ(exec("app.db", "CREATE TABLE (x)"), DAL_E_DATABASE);
  EXPECT_NE(last_error().find("syntax error"), std::string::npos) << last_error();
}

TEST_F(DalExec, FirstFailureStopsTheRestAndEarlierStatementsStay) {
  EXPECT_EQ(exec("app.db", "CREATE TABLE a(x); INSERT INTO nope VALUES(1); CREATE TABLE b(x);"), DAL_E_DATABASE);
  EXPECT_NE(last_error().find("no such table: nope"), std::string::npos) << last_error();
  EXPECT_EQ(exec("app.db", "SELECT * FROM a"), DAL_OK) << last_error();
  EXPECT_EQ(exec("app.db", "SELECT * FROM b"), DAL_E_DATABASE);
}

TEST_F(DalExec, OpenTransactionIsRolledBackSoTheWriterStaysUsable) {
  ASSERT_EQ(exec("app.db", "CREATE TABLE t(x)"), DAL_OK) << last_error();
  // A failure after BEGIN: the insert before it must not stay pending.
  EXPECT_EQ(exec("app.db", "BEGIN; INSERT INTO t VALUES(1); INSERT INTO missing VALUES(2);"), DAL_E_DATABASE);
  EXPECT_EQ(count_rows("app.db"), 0);
  // BEGIN without COMMIT is refused and rolled back.
  EXPECT_EQ(exec("app.db", "BEGIN; INSERT INTO t VALUES(1);"), DAL_E_REQUEST);
  EXPECT_NE(last_error().find("transaction open"), std::string::npos) << last_error();
  EXPECT_EQ(count_rows("app.db"), 0);
  // The writer connection is not left inside a transaction.
  EXPECT_EQ(exec("app.db", "BEGIN; INSERT INTO t VALUES(7); COMMIT;"), DAL_OK) << last_error();
  EXPECT_EQ(count_rows("app.db"), 1);
}

TEST_F(DalExec, InvalidDbNameIsRequestError) {
  for (const std::string& name :
       std::vector<std::string>{"", "../escape", "a/b", ".hidden", "x.db-wal", std::string(300, 'n')}) {
    EXPECT_EQ(exec(name, "CREATE TABLE t(x)"), DAL_E_REQUEST) << name;
    EXPECT_NE(last_error().find("db name"), std::string::npos) << last_error();
  }
  EXPECT_FALSE(std::filesystem::exists(dir_.file("../escape")));
}

TEST_F(DalExec, LengthsAreHonouredAndNulIsRefused) {
  // Neither string needs a terminator: only db[0..db_len) and sql[0..sql_len) count.
  const char db[] = "app.dbXXX";
  const char sql[] = "CREATE TABLE t(x)garbage";
  ASSERT_EQ(dal_exec(handle_, db, 6, sql, 17), DAL_OK) << last_error();
  EXPECT_TRUE(std::filesystem::exists(dir_.file("app.db")));
  EXPECT_EQ(count_rows("app.db"), 0);
  // A NUL inside the length would make SQLite stop silently: refused.
  const std::string with_nul("CREATE TABLE u(x);\0DROP TABLE t;", 32);
  EXPECT_EQ(exec("app.db", with_nul), DAL_E_REQUEST);
  EXPECT_NE(last_error().find("NUL"), std::string::npos) << last_error();
  EXPECT_EQ(count_rows("app.db"), 0);  // t still there, nothing ran
  // A NUL inside the db name is an invalid name.
  EXPECT_EQ(dal_exec(handle_, "a\0b", 3, "SELECT 1", 8), DAL_E_REQUEST);
  // Empty SQL text runs nothing and succeeds, like sqlite3_exec("").
  EXPECT_EQ(dal_exec(handle_, "app.db", 6, "", 0), DAL_OK) << last_error();
}

TEST_F(DalExec, NullPointersAndBadHandles) {
  EXPECT_EQ(dal_exec(handle_, nullptr, 0, "SELECT 1", 8), DAL_E_NULL);
  EXPECT_EQ(dal_last_error_code(), DAL_E_NULL);
  EXPECT_EQ(dal_exec(handle_, "app.db", 6, nullptr, 0), DAL_E_NULL);
  EXPECT_EQ(dal_exec(0, "app.db", 6, "SELECT 1", 8), DAL_E_HANDLE);
  EXPECT_EQ(dal_exec(987654321, "app.db", 6, "SELECT 1", 8), DAL_E_HANDLE);
  const int64_t h = dal_open(dir_.path().c_str(), nullptr);
  ASSERT_GT(h, 0) << last_error();
  ASSERT_EQ(dal_close(h), DAL_OK);
  EXPECT_EQ(dal_exec(h, "app.db", 6, "CREATE TABLE t(x)", 17), DAL_E_HANDLE);
  EXPECT_NE(last_error().find("not open"), std::string::npos) << last_error();
  EXPECT_FALSE(std::filesystem::exists(dir_.file("app.db")));
}

TEST_F(DalExec, OversizedTextIsTooLarge) {
  const int64_t h = dal_open(dir_.path().c_str(), "max_request_bytes=64");
  ASSERT_GT(h, 0) << last_error();
  const std::string sql = "CREATE TABLE t(x); -- " + std::string(64, 'c');
  EXPECT_EQ(dal_exec(h, "app.db", 6, sql.data(), sql.size()), DAL_E_TOO_LARGE);
  EXPECT_EQ(dal_exec(h, "app.db", 6, "CREATE TABLE t(x)", 17), DAL_OK) << last_error();
  EXPECT_EQ(dal_close(h), DAL_OK);
}

TEST_F(DalExec, TimeLimitInterruptsWithLimitCode) {
  const int64_t h = dal_open(dir_.path().c_str(), "max_query_ms=50");
  ASSERT_GT(h, 0) << last_error();
  const std::string slow =
      "CREATE TABLE t(x); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c) "
      "INSERT INTO t SELECT i FROM c;";  // never ends on its own
  EXPECT_EQ(dal_exec(h, "app.db", 6, slow.data(), slow.size()), DAL_E_LIMIT);
  EXPECT_NE(std::string(dal_last_error()).find("max_query_ms=50"), std::string::npos) << dal_last_error();
  // The interrupted INSERT was rolled back; the CREATE before it stays.
  EXPECT_EQ(count_rows("app.db"), 0);
  EXPECT_EQ(dal_close(h), DAL_OK);
}

TEST_F(DalExec, IsNotCountedAsQuery) {
  int64_t before[DAL_STAT_COUNT] = {};
  int64_t after[DAL_STAT_COUNT] = {};
  ASSERT_EQ(dal_stats(0, before, DAL_STAT_COUNT), DAL_STAT_COUNT);
  ASSERT_EQ(exec("app.db", "CREATE TABLE t(x)"), DAL_OK) << last_error();
  ASSERT_EQ(dal_stats(0, after, DAL_STAT_COUNT), DAL_STAT_COUNT);
  EXPECT_EQ(after[DAL_STAT_QUERIES], before[DAL_STAT_QUERIES]);
  EXPECT_EQ(after[DAL_STAT_BUFFERS_LIVE], before[DAL_STAT_BUFFERS_LIVE]);
}

}  // namespace
