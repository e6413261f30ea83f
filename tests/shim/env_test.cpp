// env_test.cpp -- lazy default resolution through $DAL_LIBRARY (ctest sets
// it to the fake library), via libdalshim.so's C ABI.
#include <gtest/gtest.h>

#include <cstring>

#include "dalshim.h"
#include "test_util.hpp"

TEST(Env, LazyLoadFromDalLibrary) {
  ASSERT_STREQ(dalshim_library_path(), "");
  int64_t h = dalshim_open("/", nullptr);  // loads lazily
  ASSERT_GT(h, 0) << dalshim_last_error();
  EXPECT_NE(std::string(dalshim_library_path()).find("libfakedal_ok.so"), std::string::npos);
  EXPECT_EQ(dalshim_dal_version(), 1000000);
  auto req = shimtest::unhex(shimtest::kReferenceHex);
  void* p = dalshim_query(h, req.data(), req.size());
  ASSERT_NE(p, nullptr) << dalshim_last_error();
  EXPECT_EQ(dalshim_buffer_size(p), 34);
  EXPECT_EQ(shimtest::hex(p, 34), shimtest::kNoSuchTableHex);
  EXPECT_EQ(dalshim_free(p), 0);
  // The DAL's stats are appended after the shim's.
  int64_t v[DALSHIM_STAT_TOTAL];
  ASSERT_EQ(dalshim_stats(0, v, DALSHIM_STAT_TOTAL), DALSHIM_STAT_TOTAL);
  EXPECT_EQ(v[DALSHIM_STAT_DAL_BASE + 0], 1000);
  EXPECT_EQ(v[DALSHIM_STAT_DAL_BASE + 12], 1012);
  EXPECT_EQ(dalshim_stat(0, DALSHIM_STAT_DAL_BASE + 5), 1005);
  // A different library cannot replace it; the same one is a no-op.
  EXPECT_EQ(dalshim_load("/some/other/libdal.so"), DALSHIM_E_LOADED);
  EXPECT_NE(std::string(dalshim_last_error()).find("already loaded"), std::string::npos);
  EXPECT_EQ(dalshim_load(nullptr), DALSHIM_OK);
  EXPECT_EQ(dalshim_close(h), DALSHIM_OK);
}

TEST(Env, LoadErrorsThroughCAbi) {
  // ctest runs every test in its own process, so nothing is loaded yet here;
  // when the whole binary runs at once, the test above has loaded the fake.
  if (*dalshim_library_path() != '\0') {
    EXPECT_EQ(dalshim_load(FAKE_DAL_DIR "/libfakedal_badversion.so"), DALSHIM_E_LOADED);
    return;
  }
  EXPECT_EQ(dalshim_load(FAKE_DAL_DIR "/libfakedal_badversion.so"), DALSHIM_E_VERSION);
  EXPECT_EQ(dalshim_last_error_code(), DALSHIM_E_VERSION);
  EXPECT_NE(std::string(dalshim_last_error()).find("2.0.0"), std::string::npos) << dalshim_last_error();
  EXPECT_EQ(dalshim_load(FAKE_DAL_DIR "/libfakedal_nostats.so"), DALSHIM_E_LOAD);
  EXPECT_NE(std::string(dalshim_last_error()).find("dal_stats"), std::string::npos) << dalshim_last_error();
  EXPECT_EQ(dalshim_load("/nonexistent/libdal.so"), DALSHIM_E_LOAD);
  EXPECT_NE(std::string(dalshim_last_error()).find("/nonexistent/libdal.so"), std::string::npos);
  EXPECT_STREQ(dalshim_library_path(), "");
  EXPECT_EQ(dalshim_dal_version(), DALSHIM_E_LOAD);
  // A failed load can be retried.
  EXPECT_EQ(dalshim_load(nullptr), DALSHIM_OK) << dalshim_last_error();
  EXPECT_NE(std::string(dalshim_library_path()).find("libfakedal_ok.so"), std::string::npos);
}
