// loader_test.cpp -- Library::load error paths with fake dal.h libraries.
#include <gtest/gtest.h>

#include "dal.h"
#include "dalshim.hpp"
#include "test_util.hpp"

using namespace dalshim;

static std::string fake(const char* v) { return std::string(FAKE_DAL_DIR) + "/libfakedal_" + v + ".so"; }

TEST(Loader, MissingLibraryNamesPath) {
  auto r = Library::load("/nonexistent/dir/libdal.so");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), DALSHIM_E_LOAD);
  EXPECT_NE(r.error().message().find("/nonexistent/dir/libdal.so"), std::string::npos) << r.error().message();
  EXPECT_EQ(dalshim_last_error_code(), DALSHIM_E_LOAD);
}

TEST(Loader, MissingSymbolNamesSymbol) {
  auto r = Library::load(fake("nostats"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), DALSHIM_E_LOAD);
  EXPECT_NE(r.error().message().find("dal_stats"), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find("libfakedal_nostats.so"), std::string::npos) << r.error().message();
}

TEST(Loader, WrongVersionNamesVersions) {
  auto r = Library::load(fake("badversion"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), DALSHIM_E_VERSION);
  const auto& m = r.error().message();
  EXPECT_NE(m.find("2.0.0"), std::string::npos) << m;
  EXPECT_NE(m.find("major 1"), std::string::npos) << m;
  EXPECT_NE(m.find("libfakedal_badversion.so"), std::string::npos) << m;
}

TEST(Loader, GoodFakeLoadsOnceAndAnswers) {
  auto r = Library::load(fake("ok"));
  ASSERT_TRUE(r.ok()) << r.error().message();
  auto again = Library::load(fake("ok"));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*r, *again);                // one Library per file
  EXPECT_EQ((*r)->version(), 1000000);  // a dal.h 1.0 library: any 1.x loads
  auto db = Database::open("/", "", *r);
  ASSERT_TRUE(db.ok()) << db.error().message();
  auto res = db->run(Query().Id(9).In("data").Find({{"a", 1}, {"b", {{"$gt", 2}}}}));
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.error().code(), DALSHIM_E_SQL);
  EXPECT_EQ(res.error().message(), "no such table: data");
}

// Mode (a) registers the response buffer before taking the pending
// response into it; when the take fails, the buffer is released again, so
// nothing leaks and nothing stays counted as live (LSan checks the former
// in the sanitized build).
TEST(Loader, FailedTakeLeavesNoBuffer) {
  auto lib = Library::load(fake("takefails"));
  ASSERT_TRUE(lib.ok()) << lib.error().message();
  auto db = Database::open("/", "", *lib);
  ASSERT_TRUE(db.ok()) << db.error().message();
  const int64_t live = dalshim_stat(0, DALSHIM_STAT_BUFFERS_LIVE);
  const int64_t live_bytes = dalshim_stat(0, DALSHIM_STAT_BUFFER_BYTES_LIVE);
  const std::vector<uint8_t> req = {0x80};
  for (int i = 0; i < 3; ++i) {
    auto r = db->query(req);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code(), DAL_E_INTERNAL);
    EXPECT_EQ(r.error().message(), "fake: take_pending fails");
  }
  EXPECT_EQ(dalshim_stat(0, DALSHIM_STAT_BUFFERS_LIVE), live);
  EXPECT_EQ(dalshim_stat(0, DALSHIM_STAT_BUFFER_BYTES_LIVE), live_bytes);
  dalshim::Bytes out;
  auto v = db->query_to(req, out);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.error().code(), DAL_E_INTERNAL);
}

TEST(Loader, DefaultPathIsBesideTheShim) {
  if (getenv("DAL_LIBRARY")) GTEST_SKIP() << "DAL_LIBRARY is set";
  std::string p = Library::default_path();
  EXPECT_EQ(p, std::string(DALKIT_OUT_DIR) + "/libdal.so");
}
