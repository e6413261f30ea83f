// GoogleTests of the DAL's hardening through the C ABI (issue 10 and the
// ABI parts of issue 13): an unknown column is an error that deletes
// nothing, the per-handle limits (max_databases, max_response_bytes,
// max_query_ms, the db name length), strict inputs (invalid UTF-8, the
// options grammar, dal_stats flags), dal_code_name and the opt-in SQLite
// result codes.
#include <dal.h>
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "abi_helpers.h"
#include "reference_workload.hpp"

namespace {

using namespace dalabi;

std::string last_error() { return dal_last_error(); }

using DalHardening = DalAbi;

// Defect 1: a Delete whose filter names a column the table lacks used to
// match every row (SQLite read "typo" as the string 'typo') and empty it.
TEST_F(DalHardening, DeleteWithUnknownColumnIsAnErrorAndDeletesNothing) {
  exec_sql("u.db",
           "CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER);"
           "INSERT INTO t (n) VALUES (1), (2), (3), (4), (5)");
  Bytes del = encode([](Packer& pk) {
    pk.pack_map(3);
    pk.pack("id");
    pk.pack(3);
    pk.pack("db");
    pk.pack("u.db");
    pk.pack("commands");
    pk.pack_array(3);
    pk.pack_map(2);
    pk.pack("method");
    pk.pack("In");
    pk.pack("args");
    pk.pack_array(1);
    pk.pack("t");
    pk.pack_map(2);
    pk.pack("method");
    pk.pack("Find");
    pk.pack("args");
    pk.pack_array(1);
    pk.pack_map(1);
    pk.pack("typo");
    pk.pack_map(1);
    pk.pack("$gt");
    pk.pack(0);
    pk.pack_map(2);
    pk.pack("method");
    pk.pack("Delete");
    pk.pack("args");
    pk.pack_array(0);
  });
  std::array<uint8_t, 256> buf{};
  int64_t n = dal_query_into(handle_, del.data(), del.size(), buf.data(), buf.size());
  ASSERT_GT(n, 0) << dal_last_error();
  auto m = decode(buf.data(), n);
  ASSERT_TRUE(m.has("e"));
  EXPECT_NE(m.at("e").as<std::string>().find("no such column"), std::string::npos) << m.at("e").as<std::string>();
  EXPECT_EQ(m.at("ra").as<int64_t>(), 0);
  EXPECT_EQ(count_rows("u.db"), 5);
}

// Defect 2: every distinct db name opened files until dal_close.
TEST(DalHardeningLimits, MaxDatabasesBoundsOpenDatabases) {
  dalkit::TempDir dir("dal-maxdb");
  int64_t h = dal_open(dir.path().c_str(), "max_databases=4");
  ASSERT_GT(h, 0) << dal_last_error();
  int64_t stats[DAL_STAT_COUNT];
  for (int i = 0; i < 50; ++i) {
    Bytes req = request_with("db" + std::to_string(i), "Find", [](Packer& pk) {
      pk.pack_array(1);
      pk.pack_map(0);
    });
    void* resp = nullptr;
    ASSERT_GT(dal_query(h, req.data(), req.size(), &resp), 0) << dal_last_error();
    EXPECT_EQ(dal_free(resp), DAL_OK);
    ASSERT_EQ(dal_stats(0, stats, DAL_STAT_COUNT), DAL_STAT_COUNT);
    // One reader connection per database (a Find), at most 4 databases.
    EXPECT_LE(stats[DAL_STAT_CONNECTIONS_OPEN], 4) << "after " << i + 1 << " names";
  }
  EXPECT_EQ(dal_close(h), DAL_OK);
  EXPECT_EQ(dal_open(dir.path().c_str(), "max_databases=0"), DAL_E_OPTIONS);
}

// Defect 3: a self-join returned 214 MB.
TEST_F(DalHardening, ResponseOverMaxResponseBytesIsLimitError) {
  exec_sql("big.db",
           "CREATE TABLE t (id INTEGER PRIMARY KEY, pad TEXT);"
           "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000)"
           "INSERT INTO t SELECT x, 'padding padding padding' FROM c");
  int64_t h = dal_open(dir_.path().c_str(), "max_response_bytes=100000");
  ASSERT_GT(h, 0) << dal_last_error();
  Bytes self_join = request_with("big.db", "Join", [](Packer& pk) {
    pk.pack_array(1);
    pk.pack_map(2);
    pk.pack("$for");
    pk.pack("t b");
    pk.pack("$as");
    pk.pack("cross");
  });
  void* resp = nullptr;
  EXPECT_EQ(dal_query(h, self_join.data(), self_join.size(), &resp), DAL_E_LIMIT);
  EXPECT_EQ(resp, nullptr);
  EXPECT_EQ(dal_last_error_code(), DAL_E_LIMIT);
  EXPECT_NE(last_error().find("max_response_bytes=100000"), std::string::npos) << last_error();
  // The handle stays usable.
  const Bytes& ref = dalkit::reference::request();
  std::array<uint8_t, 64> buf{};
  EXPECT_EQ(dal_query_into(h, ref.data(), ref.size(), buf.data(), buf.size()), 34);
  int64_t stats[DAL_STAT_COUNT];
  ASSERT_EQ(dal_stats(0, stats, DAL_STAT_COUNT), DAL_STAT_COUNT);
  EXPECT_EQ(stats[DAL_STAT_BUFFERS_LIVE], 0);
  EXPECT_EQ(dal_close(h), DAL_OK);
}

TEST_F(DalHardening, QueryOverMaxQueryMsIsInterruptedAndWritesNothing) {
  exec_sql("slow.db",
           "CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER);"
           "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000)"
           "INSERT INTO t SELECT x, x FROM c");
  int64_t h = dal_open(dir_.path().c_str(), "max_query_ms=20");
  ASSERT_GT(h, 0) << dal_last_error();
  // count(*) over a 9,000,000-row cross join: far more than 20 ms of work.
  Bytes slow = encode([](Packer& pk) {
    pk.pack_map(3);
    pk.pack("id");
    pk.pack(1);
    pk.pack("db");
    pk.pack("slow.db");
    pk.pack("commands");
    pk.pack_array(3);
    pk.pack_map(2);
    pk.pack("method");
    pk.pack("In");
    pk.pack("args");
    pk.pack_array(1);
    pk.pack("t");
    pk.pack_map(2);
    pk.pack("method");
    pk.pack("Join");
    pk.pack("args");
    pk.pack_array(1);
    pk.pack_map(2);
    pk.pack("$for");
    pk.pack("t b");
    pk.pack("$as");
    pk.pack("cross");
    pk.pack_map(2);
    pk.pack("method");
    pk.pack("Fields");
    pk.pack("args");
    pk.pack_array(1);
    pk.pack("count(*)");
  });
  void* resp = nullptr;
  EXPECT_EQ(dal_query(h, slow.data(), slow.size(), &resp), DAL_E_LIMIT);
  EXPECT_NE(last_error().find("max_query_ms=20"), std::string::npos) << last_error();
  EXPECT_EQ(count_rows("slow.db"), 3000);
  const Bytes& ref = dalkit::reference::request();
  std::array<uint8_t, 64> buf{};
  EXPECT_EQ(dal_query_into(h, ref.data(), ref.size(), buf.data(), buf.size()), 34);
  EXPECT_EQ(dal_close(h), DAL_OK);
  EXPECT_EQ(dal_open(dir_.path().c_str(), "max_query_ms=-1"), DAL_E_OPTIONS);
}

// Defect 4: docs said 255 bytes; 248..255 failed with DAL_E_DATABASE.
TEST_F(DalHardening, DbNameLengthLimitIs247Bytes) {
  Bytes out;
  auto find = [](const std::string& db) {
    return request_with(db, "Find", [](Packer& pk) {
      pk.pack_array(1);
      pk.pack_map(0);
    });
  };
  ASSERT_GT(query(find(std::string(247, 'n')), &out), 0) << dal_last_error();
  EXPECT_TRUE(decode(out.data(), out.size()).has("e"));  // no such table: the file opened fine
  for (size_t len : {size_t{248}, size_t{255}, size_t{256}, size_t{1000}}) {
    EXPECT_EQ(query(find(std::string(len, 'n')), &out), DAL_E_REQUEST) << len << " bytes";
    EXPECT_NE(last_error().find("1 to 247 bytes"), std::string::npos) << last_error();
  }
}

// Defect 5: strictness.
TEST_F(DalHardening, InvalidUtf8StringIsRequestError) {
  Bytes out;
  Bytes req = request_with("s.db", "Find", [](Packer& pk) {
    pk.pack_array(1);
    pk.pack_map(1);
    pk.pack("a");
    pk.pack(std::string("ab\xff\xfe", 4));
  });
  EXPECT_EQ(query(req, &out), DAL_E_REQUEST);
  EXPECT_NE(last_error().find("not valid UTF-8"), std::string::npos) << last_error();
  EXPECT_NE(last_error().find("at byte"), std::string::npos) << last_error();
  // The same bytes as bin are a value like any other.
  Bytes bin = request_with("s.db", "Find", [](Packer& pk) {
    pk.pack_array(1);
    pk.pack_map(1);
    pk.pack("a");
    pk.pack_bin(4);
    pk.pack_bin_body("ab\xff\xfe", 4);
  });
  EXPECT_GT(query(bin, &out), 0) << dal_last_error();
}

TEST(DalHardeningOptions, GrammarRefusesWhitespaceAndDuplicates) {
  dalkit::TempDir dir("dal-opts");
  for (const char* bad :
       {"max_readers= 4", "max_readers =4", " max_readers=4", "max_readers=4 ", "max_readers=4; stmt_cache=1",
        "max_readers=4;max_readers=4", "max_readers=2,max_readers=4", " "}) {
    EXPECT_EQ(dal_open(dir.path().c_str(), bad), DAL_E_OPTIONS) << "'" << bad << "'";
    EXPECT_EQ(dal_last_error_code(), DAL_E_OPTIONS);
  }
  EXPECT_EQ(dal_open(dir.path().c_str(), "max_readers=4;max_readers=4"), DAL_E_OPTIONS);
  EXPECT_NE(last_error().find("given twice"), std::string::npos) << last_error();
  for (const char* good :
       {"", "max_readers=4;;stmt_cache=1;", "max_databases=8,max_query_ms=0,max_response_bytes=64"}) {
    int64_t h = dal_open(dir.path().c_str(), good);
    EXPECT_GT(h, 0) << "'" << good << "': " << dal_last_error();
    if (h > 0) {
      EXPECT_EQ(dal_close(h), DAL_OK);
    }
  }
}

TEST(DalHardeningStats, UnknownFlagBitsAndNegativeCapacityAreMisuse) {
  int64_t v[DAL_STAT_COUNT];
  EXPECT_EQ(dal_stats(2, v, DAL_STAT_COUNT), DAL_E_MISUSE);
  EXPECT_NE(last_error().find("flag"), std::string::npos) << last_error();
  EXPECT_EQ(dal_stats(DAL_STATS_FORCE_GC | 0x100, v, DAL_STAT_COUNT), DAL_E_MISUSE);
  EXPECT_EQ(dal_stats(INT32_MIN, v, DAL_STAT_COUNT), DAL_E_MISUSE);
  EXPECT_EQ(dal_stats(0, v, -1), DAL_E_MISUSE);
  EXPECT_EQ(dal_stats(DAL_STATS_FORCE_GC, v, DAL_STAT_COUNT), DAL_STAT_COUNT);
}

TEST(DalCodeName, NamesEveryCode) {
  const std::vector<std::pair<int32_t, const char*>> codes = {{DAL_OK, "DAL_OK"},
                                                              {DAL_E_HANDLE, "DAL_E_HANDLE"},
                                                              {DAL_E_NULL, "DAL_E_NULL"},
                                                              {DAL_E_DECODE, "DAL_E_DECODE"},
                                                              {DAL_E_TOO_LARGE, "DAL_E_TOO_LARGE"},
                                                              {DAL_E_REQUEST, "DAL_E_REQUEST"},
                                                              {DAL_E_DATABASE, "DAL_E_DATABASE"},
                                                              {DAL_E_MISUSE, "DAL_E_MISUSE"},
                                                              {DAL_E_INTERNAL, "DAL_E_INTERNAL"},
                                                              {DAL_E_NOMEM, "DAL_E_NOMEM"},
                                                              {DAL_E_OPTIONS, "DAL_E_OPTIONS"},
                                                              {DAL_E_LIMIT, "DAL_E_LIMIT"}};
  for (const auto& [code, name] : codes) EXPECT_STREQ(dal_code_name(code), name);
  for (int32_t other : {1, -12, 34, INT32_MIN, INT32_MAX}) EXPECT_STREQ(dal_code_name(other), "DAL_E_UNKNOWN");
}

// Opt-in SQLite result codes: "codes": true adds ec to error responses;
// without it the reference response stays exactly 34 bytes.
TEST_F(DalHardening, ErrorCodesOnlyWhenRequested) {
  exec_sql("c.db", "CREATE TABLE t (k TEXT UNIQUE)");
  auto insert = [](bool codes) {
    return encode([&](Packer& pk) {
      pk.pack_map(codes ? 4 : 3);
      pk.pack("id");
      pk.pack(5);
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
      pk.pack("Insert");
      pk.pack("args");
      pk.pack_array(1);
      pk.pack_map(1);
      pk.pack("k");
      pk.pack("dup");
      if (codes) {
        pk.pack("codes");
        pk.pack(true);
      }
    });
  };
  Bytes out;
  ASSERT_GT(query(insert(false), &out), 0);
  ASSERT_GT(query(insert(true), &out), 0) << dal_last_error();
  auto m = decode(out.data(), out.size());
  EXPECT_EQ(m.at("ec").as<int64_t>(), 2067);  // SQLITE_CONSTRAINT_UNIQUE
  EXPECT_EQ(m.map.size(), 5u);                // i, ra, li, e, ec
  ASSERT_GT(query(insert(false), &out), 0);
  auto plain = decode(out.data(), out.size());
  EXPECT_TRUE(plain.has("e"));
  EXPECT_FALSE(plain.has("ec"));
  ASSERT_EQ(query(dalkit::reference::request(), &out), 34);
  EXPECT_EQ(out, dalkit::reference::response());
}

}  // namespace
