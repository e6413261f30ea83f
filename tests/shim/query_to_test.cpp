// query_to_test.cpp -- Database::query_to offers the vector's whole capacity,
// not the size the previous response left it at.  Before, query_to shrank
// out to the response and then offered out.size(): the addon's 64 KiB
// scratch behaved as 4 KiB and every mid-size response took a second DAL
// call (dal_take_pending).  libfakedal_sized.so counts those calls.
#include <dlfcn.h>

#include <gtest/gtest.h>
#include <algorithm>

#include "dal.h"
#include "dalshim.hpp"
#include "test_util.hpp"

using namespace dalshim;

namespace {

std::string fake(const char* v) { return std::string(FAKE_DAL_DIR) + "/libfakedal_" + v + ".so"; }

// A request the sized fake answers with n bytes.
std::vector<uint8_t> asking(size_t n) {
  return {static_cast<uint8_t>(n >> 24), static_cast<uint8_t>(n >> 16), static_cast<uint8_t>(n >> 8),
          static_cast<uint8_t>(n)};
}

}  // namespace

TEST(QueryTo, UsesTheWholeCapacityNotTheLastSize) {
  auto lib = Library::load(fake("sized"));
  ASSERT_TRUE(lib.ok()) << lib.error().message();
  void* so = dlopen(fake("sized").c_str(), RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(so, nullptr);
  auto takes = reinterpret_cast<int64_t (*)()>(dlsym(so, "fake_take_pending_calls"));
  ASSERT_NE(takes, nullptr);
  auto db = Database::open("/", "", *lib);
  ASSERT_TRUE(db.ok()) << db.error().message();

  dalshim::Bytes out;
  out.reserve(64 * 1024);  // the addon's scratch
  const int64_t before = takes();
  for (size_t n : {100, 20 * 1024, 100, 20 * 1024, 60 * 1024, 10}) {
    auto r = db->query_to(asking(n), out);
    ASSERT_TRUE(r.ok()) << r.error().message();
    EXPECT_EQ(*r, n);
    EXPECT_EQ(out.size(), n) << "out holds exactly the response";
  }
  EXPECT_EQ(takes() - before, 0) << "every response fitted the 64 KiB capacity: no take_pending";

  // Larger than the capacity: taken pending, and the grown vector is offered next time.
  auto r = db->query_to(asking(100 * 1024), out);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(takes() - before, 1);
  r = db->query_to(asking(90 * 1024), out);
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(takes() - before, 1);
  dlclose(so);  // drops only the reference taken above
}

// query_to grows out back to its capacity before every call; with Bytes
// that writes nothing (std::vector<uint8_t> zero-filled up to 64 KiB per
// query there).  Bytes left from before survive the shrink and regrow, which
// a value-initialising vector could not do.  (uint8_t is unsigned char, whose
// indeterminate values may be read.)
TEST(QueryTo, RegrowingWithinTheCapacityWritesNothing) {
  Bytes v(4096);
  std::fill(v.begin(), v.end(), uint8_t{0xAB});
  const uint8_t* data = v.data();
  v.resize(10);
  v.resize(4096);
  EXPECT_EQ(v.data(), data) << "no reallocation within the capacity";
  EXPECT_EQ(v[10], 0xAB);
  EXPECT_EQ(v[4095], 0xAB);
  Bytes w(3, uint8_t{7});  // a value given is still written
  EXPECT_EQ(w, (Bytes{7, 7, 7}));
}
