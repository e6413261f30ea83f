// threads_test.cpp -- 8 threads hammering one handle through the C ABI (both
// ownership modes) and the C++ API; every answer is checked.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "concat.hpp"
#include "dal.h"
#include "dalshim.h"
#include "dalshim.hpp"
#include "test_util.hpp"

using namespace dalshim;

TEST(Threads, EightThreadsOneHandle) {
  REQUIRE_DAL();
  ASSERT_EQ(dalshim_load(shimtest::dal_path().c_str()), DALSHIM_OK) << dalshim_last_error();
  shimtest::TempDir dir;
  shimtest::sqlite_exec(dir.file("database.sqlite"),
                        "CREATE TABLE t (id INTEGER PRIMARY KEY, th INTEGER, seq INTEGER, s TEXT)");
  int64_t h = dalshim_open(dir.path().c_str(), "max_readers=4");
  ASSERT_GT(h, 0) << dalshim_last_error();
  const int64_t live0 = dalshim_stat(0, DALSHIM_STAT_BUFFERS_LIVE);

  constexpr int kThreads = 8, kIters = 300;
  std::atomic<int> failures{0};
  std::vector<std::string> first_failure(kThreads);
  auto fail = [&](int th, std::string why) {
    if (failures.fetch_add(1) < 1000 && first_failure[th].empty()) first_failure[th] = std::move(why);
  };
  const auto ref = shimtest::unhex(shimtest::kReferenceHex);

  std::vector<std::thread> ts;
  for (int th = 0; th < kThreads; ++th) {
    ts.emplace_back([&, th] {
      std::vector<uint8_t> buf(4096);
      for (int k = 0; k < kIters; ++k) {
        const uint64_t id = static_cast<uint64_t>(th) * 1000000 + k;
        std::string s = dalkit::concat("t", std::to_string(th), "-", std::to_string(k));
        // Write (C ABI, mode b).
        auto ins = Query("database.sqlite").Id(id).In("t").Insert(Map{{"th", th}, {"seq", k}, {"s", s}}).bytes();
        int64_t n = dalshim_query_into(h, ins.data(), ins.size(), buf.data(), buf.size());
        if (n <= 0) {
          fail(th, "insert failed: " + std::string(dalshim_last_error()));
          continue;
        }
        auto ir = decode_response({buf.data(), static_cast<size_t>(n)});
        if (!ir.ok() || ir->is_rows() || ir->id() != id || ir->exec().rows_affected != 1) {
          fail(th, "bad insert response " + (ir.ok() ? std::string("") : ir.error().message()));
          continue;
        }
        // Read back (alternating mode a / mode b).
        auto sel = Query("database.sqlite")
                       .Id(id + 500000)
                       .In("t")
                       .Find({{"th", th}, {"seq", k}})
                       .Fields({"s", "seq"})
                       .bytes();
        std::vector<uint8_t> resp;
        if (k % 2 == 0) {
          void* p = dalshim_query(h, sel.data(), sel.size());
          if (!p) {
            fail(th, "select (a) failed: " + std::string(dalshim_last_error()));
            continue;
          }
          int64_t len = dalshim_buffer_size(p);
          resp.assign(static_cast<uint8_t*>(p), static_cast<uint8_t*>(p) + len);
          if (dalshim_free(p) != 0) fail(th, "free failed");
        } else {
          n = dalshim_query_into(h, sel.data(), sel.size(), buf.data(), buf.size());
          if (n <= 0) {
            fail(th, "select (b) failed: " + std::string(dalshim_last_error()));
            continue;
          }
          resp.assign(buf.data(), buf.data() + n);
        }
        auto rr = decode_response(resp);
        if (!rr.ok() || !rr->is_rows() || rr->id() != id + 500000 || rr->rows().size() != 1 ||
            rr->rows().rows[0][0].as_string() != s || rr->rows().rows[0][1].as_int() != k) {
          fail(th, "bad select response for " + s);
          continue;
        }
        // The reference request on a database without the table: exact bytes.
        n = dalshim_query_into(h, ref.data(), ref.size(), buf.data(), buf.size());
        if (n != 34 || shimtest::hex(buf.data(), 34) != shimtest::kNoSuchTableHex) {
          // ("database.sqlite" has table t but no table data.)
          fail(th, "reference response differs");
        }
      }
    });
  }
  for (auto& t : ts) t.join();
  for (int th = 0; th < kThreads; ++th) EXPECT_EQ(first_failure[th], "") << "thread " << th;
  EXPECT_EQ(failures.load(), 0);

  // Everything landed exactly once.
  uint8_t out[256];
  auto cnt = Query().Id(1).In("t").Fields({"count(*) as n"}).bytes();
  int64_t n = dalshim_query_into(h, cnt.data(), cnt.size(), out, sizeof out);
  ASSERT_GT(n, 0) << dalshim_last_error();
  auto cr = decode_response({out, static_cast<size_t>(n)});
  ASSERT_TRUE(cr.ok()) << cr.error().message();
  EXPECT_EQ(cr->rows().rows[0][0].as_int(), kThreads * kIters);
  EXPECT_EQ(dalshim_stat(0, DALSHIM_STAT_BUFFERS_LIVE), live0);
  EXPECT_EQ(dalshim_close(h), DALSHIM_OK);
}
