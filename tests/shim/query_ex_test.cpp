// query_ex_test.cpp -- dalshim_query_ex, mode (a) with the code and the
// message returned by the call, through libdalshim.so and the real DAL.
// What it is for: a call made on one thread (a runtime's pool) whose
// outcome is read on another, where the thread-local last error is not.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "dal.h"
#include "dalshim.h"
#include "test_util.hpp"

using shimtest::hex;
using shimtest::unhex;

namespace {

const std::vector<uint8_t> kRef = unhex(shimtest::kReferenceHex);
const uint8_t kGarbage[] = {0xc1};  // never valid MessagePack: DAL_E_DECODE

int64_t stat(int i) { return dalshim_stat(0, i); }

// The text of a message buffer, checked to be NUL-terminated after its size.
std::string message_of(void* p) {
  const int64_t n = dalshim_buffer_size(p);
  EXPECT_GE(n, 0);
  if (n < 0) return {};
  const char* s = static_cast<const char*>(p);
  EXPECT_EQ(s[n], '\0') << "the message is a C string too";
  EXPECT_EQ(std::strlen(s), static_cast<size_t>(n));
  return std::string(s, static_cast<size_t>(n));
}

class QueryEx : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_DAL();
    ASSERT_EQ(dalshim_load(shimtest::dal_path().c_str()), DALSHIM_OK) << dalshim_last_error();
    h_ = dalshim_open(dir_.path().c_str(), nullptr);
    ASSERT_GT(h_, 0) << dalshim_last_error();
  }
  void TearDown() override {
    if (h_ > 0) dalshim_close(h_);
  }
  shimtest::TempDir dir_;
  int64_t h_ = 0;
};

}  // namespace

TEST_F(QueryEx, SuccessIsTheResponseOfDalshimQuery) {
  const int64_t live = stat(DALSHIM_STAT_BUFFERS_LIVE);
  int32_t code = 12345;
  void* p = dalshim_query_ex(h_, kRef.data(), kRef.size(), &code);
  ASSERT_NE(p, nullptr) << dalshim_last_error();
  EXPECT_EQ(code, DALSHIM_OK);
  ASSERT_EQ(dalshim_buffer_size(p), 34);
  EXPECT_EQ(hex(p, 34), shimtest::kNoSuchTableHex);
  void* q = dalshim_query(h_, kRef.data(), kRef.size());
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(hex(q, 34), hex(p, 34));
  EXPECT_EQ(dalshim_free(q), DALSHIM_OK);
  EXPECT_EQ(stat(DALSHIM_STAT_BUFFERS_LIVE), live + 1);
  EXPECT_EQ(dalshim_free(p), DALSHIM_OK);
  EXPECT_EQ(stat(DALSHIM_STAT_BUFFERS_LIVE), live);
}

TEST_F(QueryEx, FailureReturnsTheCodeAndTheMessage) {
  const int64_t live = stat(DALSHIM_STAT_BUFFERS_LIVE);
  const int64_t errors = stat(DALSHIM_STAT_ERRORS);
  int32_t code = 0;
  void* p = dalshim_query_ex(h_, kGarbage, sizeof kGarbage, &code);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(code, DALSHIM_E_DECODE);
  const std::string msg = message_of(p);
  EXPECT_NE(msg.find("0xc1"), std::string::npos) << msg;
  // The same failure as dalshim_query's, recorded the same way (once).
  EXPECT_EQ(dalshim_last_error_code(), DALSHIM_E_DECODE);
  EXPECT_EQ(msg, dalshim_last_error());
  EXPECT_EQ(stat(DALSHIM_STAT_ERRORS), errors + 1);
  EXPECT_EQ(stat(DALSHIM_STAT_BUFFERS_LIVE), live + 1);  // the message buffer
  EXPECT_EQ(dalshim_free(p), DALSHIM_OK);
  EXPECT_EQ(stat(DALSHIM_STAT_BUFFERS_LIVE), live);
  EXPECT_EQ(dalshim_free(p), DALSHIM_E_DOUBLE_FREE);  // a shim buffer like any other
  EXPECT_EQ(dalshim_query(h_, kGarbage, sizeof kGarbage), nullptr);
  EXPECT_EQ(msg, dalshim_last_error());
}

TEST_F(QueryEx, ClosedAndUnknownHandles) {
  const int64_t h2 = dalshim_open(dir_.path().c_str(), nullptr);
  ASSERT_GT(h2, 0);
  ASSERT_EQ(dalshim_close(h2), DALSHIM_OK);
  int32_t code = 0;
  void* p = dalshim_query_ex(h2, kRef.data(), kRef.size(), &code);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(code, DALSHIM_E_CLOSED);
  EXPECT_NE(message_of(p).find("handle " + std::to_string(h2) + " is closed"), std::string::npos);
  EXPECT_EQ(dalshim_free(p), DALSHIM_OK);

  p = dalshim_query_ex(int64_t{1} << 40, kRef.data(), kRef.size(), &code);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(code, DALSHIM_E_HANDLE);
  EXPECT_FALSE(message_of(p).empty());
  EXPECT_EQ(dalshim_free(p), DALSHIM_OK);

  // A NULL request: the DAL's DAL_E_NULL, as from dalshim_query.
  p = dalshim_query_ex(h_, nullptr, 10, &code);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(code, DALSHIM_E_NULL);
  EXPECT_EQ(dalshim_free(p), DALSHIM_OK);
}

TEST_F(QueryEx, NullCodeOutExecutesNothing) {
  const int64_t calls = stat(DALSHIM_STAT_CALLS);
  EXPECT_EQ(dalshim_query_ex(h_, kRef.data(), kRef.size(), nullptr), nullptr);
  EXPECT_EQ(dalshim_last_error_code(), DALSHIM_E_NULL);
  EXPECT_NE(std::string(dalshim_last_error()).find("code_out"), std::string::npos) << dalshim_last_error();
  EXPECT_EQ(stat(DALSHIM_STAT_CALLS), calls);  // a write would not have run
}

// The reason for the function: the call runs on a pool thread, the caller
// reads the outcome on its own thread, whose last error is another one.
TEST_F(QueryEx, OutcomeCrossesThreads) {
  uint8_t buf[64];
  ASSERT_EQ(dalshim_query_into(h_, kRef.data(), kRef.size() - 1, buf, sizeof buf), DALSHIM_E_DECODE);
  const std::string mine = dalshim_last_error();
  int32_t code = 0;
  void* p = nullptr;
  std::thread([&] { p = dalshim_query_ex(h_, kGarbage, sizeof kGarbage, &code); }).join();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(code, DALSHIM_E_DECODE);
  const std::string theirs = message_of(p);
  EXPECT_NE(theirs.find("0xc1"), std::string::npos) << theirs;
  EXPECT_NE(theirs, mine);
  EXPECT_EQ(dalshim_last_error(), mine);   // this thread's record is untouched
  EXPECT_EQ(dalshim_free(p), DALSHIM_OK);  // freed on another thread than it was made

  // Many at once, one code_out each.
  constexpr int kThreads = 8;
  std::vector<int32_t> codes(kThreads, 1);
  std::vector<void*> out(kThreads, nullptr);
  std::vector<std::thread> pool;
  for (int i = 0; i < kThreads; ++i) {
    pool.emplace_back([&, i] {
      out[i] = i % 2 ? dalshim_query_ex(h_, kGarbage, sizeof kGarbage, &codes[i])
                     : dalshim_query_ex(h_, kRef.data(), kRef.size(), &codes[i]);
    });
  }
  for (auto& t : pool) t.join();
  for (int i = 0; i < kThreads; ++i) {
    ASSERT_NE(out[i], nullptr) << i;
    if (i % 2) {
      EXPECT_EQ(codes[i], DALSHIM_E_DECODE) << i;
      EXPECT_NE(message_of(out[i]).find("0xc1"), std::string::npos) << i;
    } else {
      EXPECT_EQ(codes[i], DALSHIM_OK) << i;
      EXPECT_EQ(hex(out[i], 34), shimtest::kNoSuchTableHex) << i;
    }
    EXPECT_EQ(dalshim_free(out[i]), DALSHIM_OK);
  }
}

// A response larger than the mode (a) scratch goes through take_pending
// inside the call; the outcome is still a plain response.
TEST_F(QueryEx, LargeResponse) {
  // 200 KiB blob: the table is made with the system SQLite (the DAL has no DDL).
  ASSERT_EQ(dalshim_exec(h_, "database.sqlite", 15, "CREATE TABLE t (b BLOB)", 23), DALSHIM_OK) << dalshim_last_error();
  ASSERT_EQ(dalshim_exec(h_, "database.sqlite", 15, "INSERT INTO t VALUES (zeroblob(204800))", 39), DALSHIM_OK)
      << dalshim_last_error();
  // {id: 1, db: "database.sqlite", commands: [{method: "In", args: ["t"]}]}
  const std::vector<uint8_t> req = unhex(
      "83a2696401a26462af64617461626173652e73716c697465a8636f6d6d616e64739182a66d6574686f64a2496ea46172677391a174");
  int32_t code = 1;
  void* p = dalshim_query_ex(h_, req.data(), req.size(), &code);
  ASSERT_NE(p, nullptr) << dalshim_last_error();
  EXPECT_EQ(code, DALSHIM_OK);
  EXPECT_GT(dalshim_buffer_size(p), 204800);
  EXPECT_EQ(dalshim_free(p), DALSHIM_OK);
}
