// GoogleTest of the DAL's C ABI (native/include/dal.h), linked straight
// against libdal.so: open / query / free / close, both ownership modes,
// every error code a caller can provoke, and many threads on one handle.
#include <dal.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <msgpack.hpp>

#include <array>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "reference_workload.hpp"

#include "abi_helpers.h"

namespace {

using namespace dalabi;

TEST(DalVersion, MatchesHeader) {
  EXPECT_EQ(dal_version(), DAL_VERSION_NUMBER);
  EXPECT_EQ(dal_version() / 1000000, DAL_VERSION_MAJOR);
  EXPECT_NE(std::string(dal_version_string()).find("sqlite 3."), std::string::npos);
}

TEST_F(DalAbi, ReferenceRequestGivesReferenceResponseModeA) {
  ASSERT_EQ(dalkit::reference::request().size(), 87u);
  Bytes out;
  ASSERT_EQ(query(dalkit::reference::request(), &out), 34);
  EXPECT_EQ(out, dalkit::reference::response());
}

TEST_F(DalAbi, ReferenceRequestGivesReferenceResponseModeB) {
  const Bytes& req = dalkit::reference::request();
  std::array<uint8_t, 64> buf{};
  for (int i = 0; i < 3; ++i) {  // repeated: the answer must not change once the statement cache is warm
    int64_t n = dal_query_into(handle_, req.data(), req.size(), buf.data(), buf.size());
    ASSERT_EQ(n, 34) << dal_last_error();
    EXPECT_EQ(Bytes(buf.begin(), buf.begin() + n), dalkit::reference::response());
  }
}

TEST_F(DalAbi, TooSmallBufferKeepsResponsePending) {
  exec_sql("w.db", "CREATE TABLE t (a INTEGER)");
  Bytes ins = request_with("w.db", "Insert", [](Packer& pk) {
    pk.pack_array(1);
    pk.pack_map(1);
    pk.pack("a");
    pk.pack(7);
  });
  std::array<uint8_t, 4> tiny{};
  int64_t n = dal_query_into(handle_, ins.data(), ins.size(), tiny.data(), tiny.size());
  ASSERT_GT(n, static_cast<int64_t>(tiny.size())) << dal_last_error();

  int64_t stats[DAL_STAT_COUNT];
  ASSERT_EQ(dal_stats(0, stats, DAL_STAT_COUNT), DAL_STAT_COUNT);
  EXPECT_GE(stats[DAL_STAT_BUFFERS_LIVE], 1);

  // Still too small: the length comes back and the response stays pending.
  EXPECT_EQ(dal_take_pending(tiny.data(), tiny.size()), n);
  Bytes big(n);
  EXPECT_EQ(dal_take_pending(big.data(), big.size()), n);
  auto m = decode(big.data(), big.size());
  EXPECT_EQ(m.at("ra").as<int64_t>(), 1);  // executed exactly once
  EXPECT_EQ(m.at("li").as<int64_t>(), 1);
  EXPECT_FALSE(m.has("e"));

  EXPECT_EQ(dal_take_pending(big.data(), big.size()), DAL_E_MISUSE);
  EXPECT_EQ(dal_last_error_code(), DAL_E_MISUSE);
  EXPECT_NE(std::string(dal_last_error()).find("no pending"), std::string::npos);

  // Nothing was re-run: the table holds one row.
  Bytes sel = request_with("w.db", "Fields", [](Packer& pk) {
    pk.pack_array(1);
    pk.pack("count(*)");
  });
  Bytes out;
  ASSERT_GT(query(sel, &out), 0) << dal_last_error();
  EXPECT_EQ(decode(out.data(), out.size()).first_cell(), 1);
}

TEST_F(DalAbi, ZeroCapacityBufferAlwaysPends) {
  const Bytes& req = dalkit::reference::request();
  EXPECT_EQ(dal_query_into(handle_, req.data(), req.size(), nullptr, 0), 34);
  std::array<uint8_t, 34> buf{};
  EXPECT_EQ(dal_take_pending(buf.data(), buf.size()), 34);
  EXPECT_EQ(Bytes(buf.begin(), buf.end()), dalkit::reference::response());
}

TEST_F(DalAbi, LiveBufferAccounting) {
  int64_t before[DAL_STAT_COUNT], after[DAL_STAT_COUNT];
  ASSERT_EQ(dal_stats(0, before, DAL_STAT_COUNT), DAL_STAT_COUNT);
  const Bytes& req = dalkit::reference::request();
  void* r[3];
  for (auto& p : r) ASSERT_EQ(dal_query(handle_, req.data(), req.size(), &p), 34);
  ASSERT_EQ(dal_stats(0, after, DAL_STAT_COUNT), DAL_STAT_COUNT);
  EXPECT_EQ(after[DAL_STAT_BUFFERS_LIVE] - before[DAL_STAT_BUFFERS_LIVE], 3);
  EXPECT_EQ(after[DAL_STAT_BUFFER_BYTES_LIVE] - before[DAL_STAT_BUFFER_BYTES_LIVE], 3 * 34);
  EXPECT_EQ(after[DAL_STAT_QUERIES] - before[DAL_STAT_QUERIES], 3);
  for (auto& p : r) EXPECT_EQ(dal_free(p), DAL_OK);
  ASSERT_EQ(dal_stats(DAL_STATS_FORCE_GC, after, DAL_STAT_COUNT), DAL_STAT_COUNT);
  EXPECT_EQ(after[DAL_STAT_BUFFERS_LIVE], before[DAL_STAT_BUFFERS_LIVE]);
  EXPECT_GE(after[DAL_STAT_HANDLES_LIVE], 1);
  EXPECT_GE(after[DAL_STAT_CONNECTIONS_OPEN], 1);
  EXPECT_GT(after[DAL_STAT_SQLITE_MEMORY_USED], 0);
  EXPECT_GT(after[DAL_STAT_GO_HEAP_INUSE], 0);
  EXPECT_GT(after[DAL_STAT_GO_GC_CYCLES], before[DAL_STAT_GO_GC_CYCLES]);
}

TEST_F(DalAbi, StatsPartialCapacity) {
  int64_t v[2] = {-1, -1};
  EXPECT_EQ(dal_stats(0, v, 1), 1);
  EXPECT_EQ(v[1], -1);
  EXPECT_EQ(dal_stats(0, nullptr, 0), 0);
  EXPECT_EQ(dal_stats(0, nullptr, 4), DAL_E_NULL);
}

// ---- every error code -------------------------------------------------------

TEST_F(DalAbi, InvalidAndClosedHandle) {
  const Bytes& req = dalkit::reference::request();
  void* resp = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(dal_query(987654321, req.data(), req.size(), &resp), DAL_E_HANDLE);
  EXPECT_EQ(resp, nullptr);
  EXPECT_EQ(dal_last_error_code(), DAL_E_HANDLE);
  EXPECT_NE(std::string(dal_last_error()).find("987654321"), std::string::npos);
  EXPECT_EQ(dal_query(0, req.data(), req.size(), &resp), DAL_E_HANDLE);
  EXPECT_EQ(dal_query(-5, req.data(), req.size(), &resp), DAL_E_HANDLE);

  int64_t h = dal_open(dir_.path().c_str(), nullptr);
  ASSERT_GT(h, 0);
  EXPECT_NE(h, handle_);
  EXPECT_EQ(dal_close(h), DAL_OK);
  EXPECT_EQ(dal_close(h), DAL_E_HANDLE);  // double close
  std::array<uint8_t, 64> buf{};
  EXPECT_EQ(dal_query_into(h, req.data(), req.size(), buf.data(), buf.size()), DAL_E_HANDLE);
  // A later handle never reuses a closed one's number.
  int64_t h2 = dal_open(dir_.path().c_str(), nullptr);
  EXPECT_GT(h2, h);
  EXPECT_EQ(dal_close(h2), DAL_OK);
}

TEST_F(DalAbi, NullPointers) {
  const Bytes& req = dalkit::reference::request();
  void* resp = nullptr;
  EXPECT_EQ(dal_open(nullptr, nullptr), DAL_E_NULL);
  EXPECT_EQ(dal_query(handle_, nullptr, 10, &resp), DAL_E_NULL);
  EXPECT_EQ(dal_query(handle_, req.data(), req.size(), nullptr), DAL_E_NULL);
  EXPECT_EQ(dal_query_into(handle_, req.data(), req.size(), nullptr, 64), DAL_E_NULL);
  EXPECT_EQ(dal_last_error_code(), DAL_E_NULL);
  EXPECT_NE(std::string(dal_last_error()).find("NULL"), std::string::npos);
  EXPECT_EQ(dal_free(nullptr), DAL_OK);
}

TEST_F(DalAbi, MalformedMessagePack) {
  Bytes out;
  const Bytes& ref = dalkit::reference::request();
  static const uint8_t empty = 0;
  void* none = nullptr;
  EXPECT_EQ(dal_query(handle_, &empty, 0, &none), DAL_E_DECODE);  // empty, but not NULL
  for (size_t cut : {size_t{1}, size_t{10}, size_t{50}, ref.size() - 1}) {
    Bytes truncated(ref.begin(), ref.begin() + cut);
    EXPECT_EQ(query(truncated, &out), DAL_E_DECODE) << "cut at " << cut;
  }
  EXPECT_NE(std::string(dal_last_error()).find("truncated"), std::string::npos) << dal_last_error();
  EXPECT_EQ(query(Bytes{0xc1, 0x00}, &out), DAL_E_DECODE);  // 0xc1 is never valid
  Bytes trailing = ref;
  trailing.push_back(0x00);
  EXPECT_EQ(query(trailing, &out), DAL_E_DECODE);
  EXPECT_EQ(query(Bytes{0xdd, 0xff, 0xff, 0xff, 0xff}, &out), DAL_E_DECODE);  // array32 of 4G elements, no body
  Bytes deep(200, 0x91);                                                      // 200 nested one-element arrays
  deep.push_back(0x01);
  EXPECT_EQ(query(deep, &out), DAL_E_DECODE);
  // The handle still works afterwards.
  EXPECT_EQ(query(ref, &out), 34);
}

TEST(DalAbiLimits, RequestOverSizeLimit) {
  dalkit::TempDir dir("dal-abi-limit");
  int64_t h = dal_open(dir.path().c_str(), "max_request_bytes=64");
  ASSERT_GT(h, 0) << dal_last_error();
  const Bytes& req = dalkit::reference::request();  // 87 > 64
  void* resp = nullptr;
  EXPECT_EQ(dal_query(h, req.data(), req.size(), &resp), DAL_E_TOO_LARGE);
  EXPECT_NE(std::string(dal_last_error()).find("max_request_bytes=64"), std::string::npos);
  // A size far beyond any real buffer is refused before anything reads it.
  EXPECT_EQ(dal_query(h, req.data(), SIZE_MAX, &resp), DAL_E_TOO_LARGE);
  EXPECT_EQ(dal_close(h), DAL_OK);
}

TEST_F(DalAbi, InvalidRequests) {
  Bytes out;
  Bytes unknown_method = request_with(dalkit::reference::kDatabase, "Fnd", [](Packer& pk) { pk.pack_array(0); });
  EXPECT_EQ(query(unknown_method, &out), DAL_E_REQUEST);
  std::string msg = dal_last_error();
  EXPECT_NE(msg.find("\"Fnd\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("Find"), std::string::npos) << msg;  // lists what is valid

  Bytes unknown_op = request_with(dalkit::reference::kDatabase, "Find", [](Packer& pk) {
    pk.pack_array(1);
    pk.pack_map(1);
    pk.pack("b");
    pk.pack_map(1);
    pk.pack("$gtx");
    pk.pack(2);
  });
  EXPECT_EQ(query(unknown_op, &out), DAL_E_REQUEST);
  msg = dal_last_error();
  EXPECT_NE(msg.find("$gtx"), std::string::npos) << msg;
  EXPECT_NE(msg.find("$gte"), std::string::npos) << msg;

  Bytes bad_limit = request_with(dalkit::reference::kDatabase, "Limit", [](Packer& pk) {
    pk.pack_array(1);
    pk.pack("ten");
  });
  EXPECT_EQ(query(bad_limit, &out), DAL_E_REQUEST);
  EXPECT_NE(std::string(dal_last_error()).find("Limit"), std::string::npos);

  Bytes not_a_map = encode([](Packer& pk) { pk.pack_array(0); });
  EXPECT_EQ(query(not_a_map, &out), DAL_E_REQUEST);
}

TEST_F(DalAbi, DatabaseNameCannotEscapeDataDirectory) {
  Bytes out;
  for (const std::string& name :
       std::vector<std::string>{"../escape.db", "/tmp/abs.db", "..", ".", "sub/dir.db", "a\\b.db", ".hidden",
                                "x.db-wal", "x.db-journal", std::string("nul\0byte", 8), ":memory:"}) {
    Bytes req = request_with(name, "Find", [](Packer& pk) {
      pk.pack_array(1);
      pk.pack_map(0);
    });
    EXPECT_EQ(query(req, &out), DAL_E_REQUEST) << "name " << name;
    EXPECT_NE(std::string(dal_last_error()).find("invalid db name"), std::string::npos) << dal_last_error();
  }
  Bytes empty_name = request_with("", "Find", [](Packer& pk) {
    pk.pack_array(1);
    pk.pack_map(0);
  });
  EXPECT_EQ(query(empty_name, &out), DAL_E_REQUEST);
  EXPECT_NE(std::string(dal_last_error()).find("db"), std::string::npos) << dal_last_error();
  // A symbolic link inside the data directory pointing outside is refused.
  dalkit::TempDir outside("dal-outside");
  std::filesystem::create_symlink(outside.file("target.db"), dir_.file("link.db"));
  Bytes req = request_with("link.db", "Find", [](Packer& pk) {
    pk.pack_array(1);
    pk.pack_map(0);
  });
  EXPECT_EQ(query(req, &out), DAL_E_REQUEST);
  EXPECT_FALSE(std::filesystem::exists(outside.file("target.db")));
  // So is a planted symlink for a side file.
  std::filesystem::create_symlink(outside.file("wal"), dir_.file("side.db-wal"));
  Bytes side = request_with("side.db", "Find", [](Packer& pk) {
    pk.pack_array(1);
    pk.pack_map(0);
  });
  EXPECT_EQ(query(side, &out), DAL_E_REQUEST);
}

TEST(DalAbiOpen, BadDirectoryAndOptions) {
  EXPECT_EQ(dal_open("/nonexistent/dalkit/dir", nullptr), DAL_E_DATABASE);
  EXPECT_NE(std::string(dal_last_error()).find("/nonexistent/dalkit/dir"), std::string::npos);
  dalkit::TempDir dir("dal-abi-opt");
  EXPECT_EQ(dal_open(dir.path().c_str(), "max_readers=0"), DAL_E_OPTIONS);
  EXPECT_NE(std::string(dal_last_error()).find("max_readers"), std::string::npos);
  EXPECT_EQ(dal_open(dir.path().c_str(), "colour=blue"), DAL_E_OPTIONS);
  EXPECT_NE(std::string(dal_last_error()).find("valid options"), std::string::npos);
  EXPECT_EQ(dal_open(dir.path().c_str(), "stmt_cache"), DAL_E_OPTIONS);
  int64_t h = dal_open(dir.path().c_str(), "busy_timeout_ms=100;max_readers=2,stmt_cache=0;synchronous=full;");
  EXPECT_GT(h, 0) << dal_last_error();
  EXPECT_EQ(dal_close(h), DAL_OK);
}

TEST_F(DalAbi, ForeignPointerAndDoubleFree) {
  int on_stack = 0;
  EXPECT_EQ(dal_free(&on_stack), DAL_E_MISUSE);
  void* foreign = std::malloc(16);
  EXPECT_EQ(dal_free(foreign), DAL_E_MISUSE);
  EXPECT_NE(std::string(dal_last_error()).find("not returned by dal_query"), std::string::npos);
  std::free(foreign);

  const Bytes& req = dalkit::reference::request();
  void* resp = nullptr;
  ASSERT_EQ(dal_query(handle_, req.data(), req.size(), &resp), 34);
  EXPECT_EQ(dal_free(resp), DAL_OK);
  EXPECT_EQ(dal_free(resp), DAL_E_MISUSE);  // double free detected, heap untouched
}

TEST_F(DalAbi, ErrorsAreThreadLocal) {
  void* resp = nullptr;
  const Bytes& req = dalkit::reference::request();
  EXPECT_EQ(dal_query(424242, req.data(), req.size(), &resp), DAL_E_HANDLE);
  std::thread([] {
    EXPECT_EQ(dal_last_error_code(), DAL_OK);
    EXPECT_STREQ(dal_last_error(), "");
  }).join();
  EXPECT_EQ(dal_last_error_code(), DAL_E_HANDLE);
}

// ---- concurrency --------------------------------------------------------------

// 8 threads x 100k reference queries on one handle, alternating ownership
// modes; every answer is compared byte for byte.
TEST_F(DalAbi, EightThreadsHundredThousandQueriesEach) {
  constexpr int kThreads = 8, kQueries = 100000;
  std::atomic<int64_t> wrong{0}, done{0};
  std::vector<std::thread> threads;
  const Bytes& req = dalkit::reference::request();
  const Bytes& want = dalkit::reference::response();
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::array<uint8_t, 64> buf{};
      for (int i = 0; i < kQueries; ++i) {
        if ((i + t) % 2 == 0) {
          int64_t n = dal_query_into(handle_, req.data(), req.size(), buf.data(), buf.size());
          if (n != 34 || std::memcmp(buf.data(), want.data(), 34) != 0) ++wrong;
        } else {
          void* resp = nullptr;
          int64_t n = dal_query(handle_, req.data(), req.size(), &resp);
          if (n != 34 || std::memcmp(resp, want.data(), 34) != 0) ++wrong;
          if (dal_free(resp) != DAL_OK) ++wrong;
        }
        ++done;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(done.load(), int64_t{kThreads} * kQueries);
  EXPECT_EQ(wrong.load(), 0);
  int64_t stats[DAL_STAT_COUNT];
  ASSERT_EQ(dal_stats(0, stats, DAL_STAT_COUNT), DAL_STAT_COUNT);
  EXPECT_EQ(stats[DAL_STAT_BUFFERS_LIVE], 0);
}

// Writers and readers on one database at once: WAL readers see committed
// rows only, the single writer never loses an insert.
TEST_F(DalAbi, ConcurrentWritersAndReaders) {
  exec_sql("rw.db", "CREATE TABLE t (k INTEGER, v TEXT)");
  constexpr int kWriters = 4, kInserts = 500, kReaders = 4;
  std::atomic<int> failures{0};
  std::atomic<bool> writing{true};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kInserts; ++i) {
        Bytes req = request_with("rw.db", "Insert", [&](Packer& pk) {
          pk.pack_array(1);
          pk.pack_map(2);
          pk.pack("k");
          pk.pack(w);
          pk.pack("v");
          pk.pack("row " + std::to_string(i));
        });
        void* resp = nullptr;
        int64_t n = dal_query(handle_, req.data(), req.size(), &resp);
        if (n <= 0) {
          ++failures;
          continue;
        }
        auto m = decode(resp, n);
        if (m.has("e") || m.at("ra").as<int64_t>() != 1) ++failures;
        dal_free(resp);
      }
    });
  }
  for (int r = 0; r < kReaders; ++r) {
    threads.emplace_back([&] {
      Bytes req = request_with("rw.db", "Fields", [](Packer& pk) {
        pk.pack_array(1);
        pk.pack("count(*)");
      });
      int64_t last = 0;
      while (writing.load()) {
        void* resp = nullptr;
        int64_t n = dal_query(handle_, req.data(), req.size(), &resp);
        if (n <= 0) {
          ++failures;
          break;
        }
        auto m = decode(resp, n);
        dal_free(resp);
        if (m.has("e")) {
          ++failures;
          break;
        }
        int64_t count = m.first_cell();
        if (count < last) ++failures;  // committed rows never disappear
        last = count;
      }
    });
  }
  for (int w = 0; w < kWriters; ++w) threads[w].join();
  writing = false;
  for (size_t i = kWriters; i < threads.size(); ++i) threads[i].join();
  EXPECT_EQ(failures.load(), 0);
  Bytes count = request_with("rw.db", "Fields", [](Packer& pk) {
    pk.pack_array(1);
    pk.pack("count(*)");
  });
  Bytes out;
  ASSERT_GT(query(count, &out), 0);
  EXPECT_EQ(decode(out.data(), out.size()).first_cell(), kWriters * kInserts);
}

// Closing a handle while other threads query it: they finish or get
// DAL_E_HANDLE, never a crash or a wrong answer.
TEST_F(DalAbi, CloseWhileQuerying) {
  int64_t h = dal_open(dir_.path().c_str(), nullptr);
  ASSERT_GT(h, 0);
  std::atomic<int> wrong{0};
  std::mutex first_wrong_mu;
  std::string first_wrong;
  std::vector<std::thread> threads;
  const Bytes& req = dalkit::reference::request();
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      std::array<uint8_t, 64> buf{};
      for (int i = 0; i < 20000; ++i) {
        int64_t n = dal_query_into(h, req.data(), req.size(), buf.data(), buf.size());
        if (n == DAL_E_HANDLE) break;
        if (n != 34 || std::memcmp(buf.data(), dalkit::reference::response().data(), 34) != 0) {
          if (wrong++ == 0) {
            std::lock_guard<std::mutex> lock(first_wrong_mu);
            first_wrong = n < 0 ? dal_last_error() : std::string(buf.begin(), buf.begin() + std::min<int64_t>(n, 64));
          }
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(dal_close(h), DAL_OK);
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0) << "first wrong answer: " << first_wrong;
}

}  // namespace
