// capi_test.cpp -- every C ABI error path, the accounting and the reference
// round trip, through libdalshim.so and the real DAL.
#include <gtest/gtest.h>

#include <cstdlib>
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

void load_real() { ASSERT_EQ(dalshim_load(shimtest::dal_path().c_str()), DALSHIM_OK) << dalshim_last_error(); }

int64_t stat(int i) { return dalshim_stat(0, i); }

class CApi : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_DAL();
    load_real();
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

// Must run before anything loads (ctest runs each test in its own process;
// as a whole binary this is the first test).
TEST(CApiUnloaded, CallsBeforeLoadFailCleanly) {
  if (*dalshim_library_path() != '\0') GTEST_SKIP() << "a DAL is already loaded in this process";
  uint8_t buf[64];
  EXPECT_EQ(dalshim_query_into(1, kRef.data(), kRef.size(), buf, sizeof buf), DALSHIM_E_HANDLE);
  EXPECT_EQ(dalshim_last_error_code(), DALSHIM_E_HANDLE);
  EXPECT_NE(std::string(dalshim_last_error()).find("no DAL library is loaded"), std::string::npos);
  EXPECT_EQ(dalshim_query(1, kRef.data(), kRef.size()), nullptr);
  EXPECT_EQ(dalshim_take_pending(buf, sizeof buf), DALSHIM_E_MISUSE);
  EXPECT_EQ(dalshim_close(1), DALSHIM_E_HANDLE);
  EXPECT_EQ(dalshim_dal_version(), DALSHIM_E_LOAD);
  EXPECT_EQ(dalshim_stats(0, nullptr, 0), 0);
  int64_t v[DALSHIM_STAT_TOTAL];
  EXPECT_EQ(dalshim_stats(0, v, DALSHIM_STAT_TOTAL), DALSHIM_STAT_COUNT);  // no DAL part
  EXPECT_EQ(dalshim_stat(0, DALSHIM_STAT_DAL_BASE), INT64_MIN);
}

TEST(CApiLoad, LoadErrors) {
  REQUIRE_DAL();
  if (*dalshim_library_path() == '\0') {
    EXPECT_EQ(dalshim_load("/nonexistent/libdal.so"), DALSHIM_E_LOAD);
    EXPECT_NE(std::string(dalshim_last_error()).find("/nonexistent/libdal.so"), std::string::npos);
    EXPECT_EQ(dalshim_load(FAKE_DAL_DIR "/libfakedal_badversion.so"), DALSHIM_E_VERSION);
    EXPECT_EQ(dalshim_load(FAKE_DAL_DIR "/libfakedal_nostats.so"), DALSHIM_E_LOAD);
  }
  load_real();
  EXPECT_EQ(dalshim_load(shimtest::dal_path().c_str()), DALSHIM_OK);  // same path: no-op
  EXPECT_EQ(dalshim_load(nullptr), DALSHIM_OK);
  EXPECT_EQ(dalshim_load(FAKE_DAL_DIR "/libfakedal_ok.so"), DALSHIM_E_LOADED);
  EXPECT_EQ(dalshim_last_error_code(), DALSHIM_E_LOADED);
  EXPECT_EQ(dalshim_dal_version() / 1000000, DAL_VERSION_MAJOR);
  EXPECT_EQ(dalshim_version(), DALSHIM_VERSION_NUMBER);
}

TEST_F(CApi, ReferenceRoundTripIsExactly34Bytes) {
  uint8_t buf[256];
  int64_t n = dalshim_query_into(h_, kRef.data(), kRef.size(), buf, sizeof buf);
  ASSERT_EQ(n, 34) << dalshim_last_error();
  EXPECT_EQ(hex(buf, 34), shimtest::kNoSuchTableHex);

  void* p = dalshim_query(h_, kRef.data(), kRef.size());
  ASSERT_NE(p, nullptr) << dalshim_last_error();
  ASSERT_EQ(dalshim_buffer_size(p), 34);
  EXPECT_EQ(hex(p, 34), shimtest::kNoSuchTableHex);
  EXPECT_EQ(dalshim_free(p), DALSHIM_OK);
}

TEST_F(CApi, ModeBTooSmallThenTakePending) {
  uint8_t small[8];
  int64_t n = dalshim_query_into(h_, kRef.data(), kRef.size(), small, sizeof small);
  ASSERT_EQ(n, 34);
  uint8_t buf[10];
  EXPECT_EQ(dalshim_take_pending(buf, sizeof buf), 34);  // still too small: stays pending
  uint8_t big[64];
  EXPECT_EQ(dalshim_take_pending(big, sizeof big), 34);
  EXPECT_EQ(hex(big, 34), shimtest::kNoSuchTableHex);
  EXPECT_EQ(dalshim_take_pending(big, sizeof big), DALSHIM_E_MISUSE);  // nothing pending now
  EXPECT_EQ(dalshim_last_error_code(), DALSHIM_E_MISUSE);
  // NULL buffer with cap 0: everything pending.
  EXPECT_EQ(dalshim_query_into(h_, kRef.data(), kRef.size(), nullptr, 0), 34);
  EXPECT_EQ(dalshim_take_pending(big, sizeof big), 34);
}

TEST_F(CApi, EveryErrorCode) {
  uint8_t buf[256];
  // DAL_E_HANDLE: never issued, zero, negative.
  for (int64_t bad : {int64_t{0}, int64_t{-5}, int64_t{1} << 40}) {
    EXPECT_EQ(dalshim_query_into(bad, kRef.data(), kRef.size(), buf, sizeof buf), DALSHIM_E_HANDLE) << bad;
    EXPECT_EQ(dalshim_query(bad, kRef.data(), kRef.size()), nullptr);
    EXPECT_EQ(dalshim_last_error_code(), DALSHIM_E_HANDLE);
  }
  EXPECT_EQ(dalshim_close(int64_t{1} << 40), DALSHIM_E_HANDLE);
  // DAL_E_NULL
  EXPECT_EQ(dalshim_query_into(h_, nullptr, 10, buf, sizeof buf), DALSHIM_E_NULL);
  EXPECT_EQ(dalshim_query(h_, nullptr, 10), nullptr);
  EXPECT_EQ(dalshim_last_error_code(), DALSHIM_E_NULL);
  EXPECT_EQ(dalshim_open(nullptr, nullptr), DALSHIM_E_NULL);
  EXPECT_EQ(dalshim_stats(0, nullptr, 3), DALSHIM_E_NULL);
  EXPECT_EQ(dalshim_buffer_size(nullptr), DALSHIM_E_NULL);
  // DAL_E_DECODE: garbage, truncated, trailing bytes.
  const uint8_t garbage[] = {0xc1, 0xff, 0x00, 0x13};
  EXPECT_EQ(dalshim_query_into(h_, garbage, sizeof garbage, buf, sizeof buf), DALSHIM_E_DECODE);
  EXPECT_EQ(dalshim_query_into(h_, kRef.data(), kRef.size() - 1, buf, sizeof buf), DALSHIM_E_DECODE);
  auto trailing = kRef;
  trailing.push_back(0);
  EXPECT_EQ(dalshim_query_into(h_, trailing.data(), trailing.size(), buf, sizeof buf), DALSHIM_E_DECODE);
  EXPECT_EQ(dalshim_query(h_, garbage, sizeof garbage), nullptr);
  EXPECT_EQ(dalshim_last_error_code(), DALSHIM_E_DECODE);
  EXPECT_STRNE(dalshim_last_error(), "");
  // DAL_E_REQUEST: well-formed, wrong shape ({} and an unknown method).
  const uint8_t empty_map[] = {0x80};
  EXPECT_EQ(dalshim_query_into(h_, empty_map, 1, buf, sizeof buf), DALSHIM_E_REQUEST);
  // DAL_E_TOO_LARGE
  int64_t small = dalshim_open(dir_.path().c_str(), "max_request_bytes=64");
  ASSERT_GT(small, 0) << dalshim_last_error();
  EXPECT_EQ(dalshim_query_into(small, kRef.data(), kRef.size(), buf, sizeof buf), DALSHIM_E_TOO_LARGE);
  EXPECT_EQ(dalshim_close(small), DALSHIM_OK);
  // DAL_E_DATABASE: directory does not exist.
  EXPECT_EQ(dalshim_open("/nonexistent/dir/for/dalshim", nullptr), DALSHIM_E_DATABASE) << dalshim_last_error();
  // DAL_E_OPTIONS
  EXPECT_EQ(dalshim_open(dir_.path().c_str(), "no_such_option=1"), DALSHIM_E_OPTIONS);
  EXPECT_EQ(dalshim_open(dir_.path().c_str(), "max_readers=0"), DALSHIM_E_OPTIONS);
  EXPECT_NE(std::string(dalshim_last_error()).find("max_readers"), std::string::npos) << dalshim_last_error();
  // DAL_E_MISUSE: take_pending with nothing pending.
  EXPECT_EQ(dalshim_take_pending(buf, sizeof buf), DALSHIM_E_MISUSE);
  // dalshim_stats misuse: dal_stats' codes (DAL_E_MISUSE, DAL_E_NULL).
  int64_t v[4];
  EXPECT_EQ(dalshim_stats(0, v, -1), DALSHIM_E_MISUSE);
  EXPECT_EQ(dalshim_stats(2, v, 4), DALSHIM_E_MISUSE);
  EXPECT_NE(std::string(dalshim_last_error()).find("unknown flag bits 2"), std::string::npos) << dalshim_last_error();
  EXPECT_EQ(dalshim_stats(0, nullptr, 4), DALSHIM_E_NULL);
  // DAL_E_OPTIONS from the shim's own parser (same grammar and message as the DAL's).
  EXPECT_EQ(dalshim_open(dir_.path().c_str(), "plant_leak=shim_malloc;plant_leak_bytes= 16"), DALSHIM_E_OPTIONS);
  EXPECT_STREQ(dalshim_last_error(), "option 'plant_leak_bytes= 16': whitespace around the value");
  EXPECT_EQ(dalshim_open(dir_.path().c_str(), "plant_leak_bytes= 16"), DALSHIM_E_OPTIONS);
  EXPECT_STREQ(dalshim_last_error(), "option 'plant_leak_bytes= 16': whitespace around the value");
  // DALSHIM_E_FOREIGN_POINTER: stack, malloc'd, interior pointers; untouched.
  void* m = std::malloc(16);
  EXPECT_EQ(dalshim_free(m), DALSHIM_E_FOREIGN_POINTER);
  EXPECT_EQ(dalshim_free(buf), DALSHIM_E_FOREIGN_POINTER);
  EXPECT_EQ(dalshim_buffer_size(m), DALSHIM_E_FOREIGN_POINTER);
  std::free(m);
  void* p = dalshim_query(h_, kRef.data(), kRef.size());
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(dalshim_free(static_cast<uint8_t*>(p) + 1), DALSHIM_E_FOREIGN_POINTER);
  // DALSHIM_E_DOUBLE_FREE
  EXPECT_EQ(dalshim_free(p), DALSHIM_OK);
  EXPECT_EQ(dalshim_free(p), DALSHIM_E_DOUBLE_FREE);
  EXPECT_EQ(dalshim_last_error_code(), DALSHIM_E_DOUBLE_FREE);
  EXPECT_EQ(dalshim_buffer_size(p), DALSHIM_E_DOUBLE_FREE);
  EXPECT_EQ(dalshim_free(nullptr), DALSHIM_OK);
  // DALSHIM_E_CLOSED: calls after close, double close.
  int64_t h2 = dalshim_open(dir_.path().c_str(), nullptr);
  ASSERT_GT(h2, 0);
  EXPECT_EQ(dalshim_close(h2), DALSHIM_OK);
  EXPECT_EQ(dalshim_query_into(h2, kRef.data(), kRef.size(), buf, sizeof buf), DALSHIM_E_CLOSED);
  EXPECT_NE(std::string(dalshim_last_error()).find("closed"), std::string::npos) << dalshim_last_error();
  EXPECT_EQ(dalshim_query(h2, kRef.data(), kRef.size()), nullptr);
  EXPECT_EQ(dalshim_last_error_code(), DALSHIM_E_CLOSED);
  EXPECT_EQ(dalshim_close(h2), DALSHIM_E_CLOSED);
  // The live handle is unaffected by all of the above.
  EXPECT_EQ(dalshim_query_into(h_, kRef.data(), kRef.size(), buf, sizeof buf), 34);
}

TEST_F(CApi, LastErrorIsThreadLocal) {
  uint8_t buf[64];
  const uint8_t garbage[] = {0xc1};
  ASSERT_EQ(dalshim_query_into(h_, garbage, 1, buf, sizeof buf), DALSHIM_E_DECODE);
  int32_t other_code = 1;
  std::string other_msg = "x";
  std::thread([&] {
    other_code = dalshim_last_error_code();
    other_msg = dalshim_last_error();
  }).join();
  EXPECT_EQ(other_code, 0);
  EXPECT_EQ(other_msg, "");
  EXPECT_EQ(dalshim_last_error_code(), DALSHIM_E_DECODE);
  // Success does not reset (errno semantics).
  ASSERT_EQ(dalshim_query_into(h_, kRef.data(), kRef.size(), buf, sizeof buf), 34);
  EXPECT_EQ(dalshim_last_error_code(), DALSHIM_E_DECODE);
}

TEST_F(CApi, AccountingAfterKnownSequence) {
  const int64_t calls0 = stat(DALSHIM_STAT_CALLS), in0 = stat(DALSHIM_STAT_REQUEST_BYTES),
                out0 = stat(DALSHIM_STAT_RESPONSE_BYTES), err0 = stat(DALSHIM_STAT_ERRORS),
                live0 = stat(DALSHIM_STAT_BUFFERS_LIVE), bytes0 = stat(DALSHIM_STAT_BUFFER_BYTES_LIVE);
  void* p[3];
  for (auto& x : p) {
    x = dalshim_query(h_, kRef.data(), kRef.size());
    ASSERT_NE(x, nullptr);
  }
  EXPECT_EQ(dalshim_free(p[0]), 0);
  EXPECT_EQ(dalshim_free(p[1]), 0);
  EXPECT_EQ(stat(DALSHIM_STAT_BUFFERS_LIVE) - live0, 1);
  EXPECT_EQ(stat(DALSHIM_STAT_BUFFER_BYTES_LIVE) - bytes0, 34);
  EXPECT_EQ(stat(DALSHIM_STAT_CALLS) - calls0, 3);
  EXPECT_EQ(stat(DALSHIM_STAT_REQUEST_BYTES) - in0, 3 * 87);
  EXPECT_EQ(stat(DALSHIM_STAT_RESPONSE_BYTES) - out0, 3 * 34);
  EXPECT_EQ(stat(DALSHIM_STAT_ERRORS) - err0, 0);
  // Mode (b): 2 more calls, one an error; then a double free is an error.
  uint8_t buf[64];
  EXPECT_EQ(dalshim_query_into(h_, kRef.data(), kRef.size(), buf, sizeof buf), 34);
  EXPECT_EQ(dalshim_query_into(h_, kRef.data(), 3, buf, sizeof buf), DALSHIM_E_DECODE);
  EXPECT_EQ(dalshim_free(p[0]), DALSHIM_E_DOUBLE_FREE);
  EXPECT_EQ(stat(DALSHIM_STAT_CALLS) - calls0, 5);
  EXPECT_EQ(stat(DALSHIM_STAT_REQUEST_BYTES) - in0, 4 * 87 + 3);
  EXPECT_EQ(stat(DALSHIM_STAT_RESPONSE_BYTES) - out0, 4 * 34);
  EXPECT_EQ(stat(DALSHIM_STAT_ERRORS) - err0, 2);
  EXPECT_EQ(dalshim_free(p[2]), 0);
  EXPECT_EQ(stat(DALSHIM_STAT_BUFFERS_LIVE), live0);
  EXPECT_EQ(stat(DALSHIM_STAT_HANDLES_OPEN), 1);
#if !defined(__SANITIZE_ADDRESS__)
  EXPECT_GT(stat(DALSHIM_STAT_MALLOC_INUSE), 0);  // ASan's allocator reports 0 through mallinfo2()
#endif

  // The DAL's own counters follow the shim's.
  int64_t v[DALSHIM_STAT_TOTAL];
  ASSERT_EQ(dalshim_stats(DALSHIM_STATS_FORCE_GC, v, DALSHIM_STAT_TOTAL), DALSHIM_STAT_TOTAL);
  EXPECT_EQ(v[DALSHIM_STAT_DAL_BASE + DAL_STAT_HANDLES_LIVE], 1);
  EXPECT_GE(v[DALSHIM_STAT_DAL_BASE + DAL_STAT_QUERIES], 4);
  EXPECT_EQ(v[DALSHIM_STAT_DAL_BASE + DAL_STAT_BUFFERS_LIVE], 0);  // no DAL buffer outlives a call
  EXPECT_EQ(v[DALSHIM_STAT_BUFFERS_LIVE], 0);
  // Short capacity: only that many written.
  int64_t few[3] = {-1, -1, -1};
  EXPECT_EQ(dalshim_stats(0, few, 2), 2);
  EXPECT_EQ(few[2], -1);
}

TEST_F(CApi, LargeResponseInModeA) {
  // A response above the 64 KiB scratch goes through take_pending.
  shimtest::sqlite_exec(dir_.file("big.sqlite"), "CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT)");
  // 200 rows of 1,000 bytes, filled with SQLite, read through the shim.
  std::string big(1000, 'x');
  std::string sql = "INSERT INTO t (s) VALUES ";
  for (int i = 0; i < 200; ++i) sql += std::string(i ? "," : "") + "('" + big + "')";
  shimtest::sqlite_exec(dir_.file("big.sqlite"), sql);
  // {id:1, db:"big.sqlite", commands:[{method:"In", args:["t"]}]}
  std::vector<uint8_t> req =
      unhex("83a2696401a26462aa6269672e73716c697465a8636f6d6d616e64739182a66d6574686f64a2496ea46172677391a174");
  // Round 0 arrives through take_pending, round 1 through the scratch the
  // first round grew: both must hand out the same bytes.
  std::vector<uint8_t> first;
  for (int round = 0; round < 2; ++round) {
    void* p = dalshim_query(h_, req.data(), req.size());
    ASSERT_NE(p, nullptr) << dalshim_last_error();
    int64_t n = dalshim_buffer_size(p);
    EXPECT_GT(n, 200 * 1000);
    EXPECT_EQ(static_cast<uint8_t*>(p)[0], 0x83);  // {i, c, r}
    std::vector<uint8_t> bytes(static_cast<uint8_t*>(p), static_cast<uint8_t*>(p) + n);
    if (round == 0)
      first = bytes;
    else
      EXPECT_EQ(bytes, first);
    EXPECT_EQ(dalshim_free(p), 0);
  }
}
