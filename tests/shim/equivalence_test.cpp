// equivalence_test.cpp -- the same cases through the C ABI (dalshim_*) and
// the C++ API (Database), which must agree: result codes, messages, bytes
// and the deltas of the shim's counters.  Both faces are wrappers over one
// implementation (dal-shim/src/operations.hpp); this test keeps it so.
//
// Linked with dalshim_core alone, so the C functions and the C++ classes
// share one copy of the shim's state (counters, registry, last error).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "dal.h"
#include "dalshim.h"
#include "dalshim.hpp"
#include "test_util.hpp"

using namespace dalshim;

namespace {

const std::vector<uint8_t> kRef = shimtest::unhex(shimtest::kReferenceHex);
const std::vector<uint8_t> kRefResponse = shimtest::unhex(shimtest::kNoSuchTableHex);

constexpr int kWatched[] = {DALSHIM_STAT_CALLS,        DALSHIM_STAT_REQUEST_BYTES, DALSHIM_STAT_RESPONSE_BYTES,
                            DALSHIM_STAT_ERRORS,       DALSHIM_STAT_BUFFERS_LIVE,  DALSHIM_STAT_BUFFER_BYTES_LIVE,
                            DALSHIM_STAT_HANDLES_OPEN, DALSHIM_STAT_PLANTED_BYTES};

// What one run of a case produced.
struct Outcome {
  int64_t result = 0;           // n, handle sign, or code
  std::vector<uint8_t> bytes;   // the response, if any
  int32_t last_code = 0;        // dalshim_last_error_code() after the case
  std::string last_message;     // dalshim_last_error() after the case
  std::vector<int64_t> deltas;  // kWatched counters, after - before
};

std::vector<int64_t> watched() {
  std::vector<int64_t> v;
  for (int i : kWatched) v.push_back(dalshim_stat(0, i));
  return v;
}

// Runs fn (which fills result and bytes) and records the rest.  The last
// error is reset first by a known failure, so a case that records nothing
// shows the marker.
Outcome run(const std::function<void(Outcome&)>& fn) {
  uint8_t b[1];
  (void)dalshim_take_pending(b, sizeof b);  // marker: DAL_E_MISUSE "no pending response"
  Outcome o;
  const auto before = watched();
  fn(o);
  const auto after = watched();
  for (size_t i = 0; i < before.size(); ++i) o.deltas.push_back(after[i] - before[i]);
  o.last_code = dalshim_last_error_code();
  o.last_message = dalshim_last_error();
  return o;
}

void expect_same(const Outcome& c, const Outcome& cpp, const char* what) {
  EXPECT_EQ(c.result, cpp.result) << what;
  EXPECT_EQ(shimtest::hex(c.bytes), shimtest::hex(cpp.bytes)) << what;
  EXPECT_EQ(c.last_code, cpp.last_code) << what;
  EXPECT_EQ(c.last_message, cpp.last_message) << what;
  EXPECT_EQ(c.deltas, cpp.deltas) << what
                                  << " (counters: calls, req, resp, errors, buffers, buffer bytes, handles, planted)";
}

class Equivalence : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_DAL();
    auto lib = Library::load_default(shimtest::dal_path());
    ASSERT_TRUE(lib.ok()) << lib.error().message();
    h_ = dalshim_open(dir_.path().c_str(), nullptr);
    ASSERT_GT(h_, 0) << dalshim_last_error();
    auto db = Database::open(dir_.path());
    ASSERT_TRUE(db.ok()) << db.error().message();
    db_ = std::move(*db);
  }
  void TearDown() override {
    if (h_ > 0) dalshim_close(h_);
  }
  shimtest::TempDir dir_;
  int64_t h_ = 0;
  Database db_;
};

}  // namespace

TEST_F(Equivalence, ReferenceQueryModeB) {
  auto c = run([&](Outcome& o) {
    o.bytes.resize(256);
    o.result = dalshim_query_into(h_, kRef.data(), kRef.size(), o.bytes.data(), o.bytes.size());
    o.bytes.resize(o.result > 0 ? static_cast<size_t>(o.result) : 0);
  });
  auto cpp = run([&](Outcome& o) {
    o.bytes.resize(256);
    auto n = db_.query_into(kRef, o.bytes);
    o.result = n ? *n : n.error().code();
    o.bytes.resize(n ? static_cast<size_t>(*n) : 0);
  });
  EXPECT_EQ(c.bytes, kRefResponse);
  EXPECT_EQ(c.deltas, (std::vector<int64_t>{1, 87, 34, 0, 0, 0, 0, 0}));
  expect_same(c, cpp, "reference query, mode (b)");
}

TEST_F(Equivalence, TooSmallThenTakePending) {
  auto c = run([&](Outcome& o) {
    uint8_t small[8];
    o.result = dalshim_query_into(h_, kRef.data(), kRef.size(), small, sizeof small);
    o.bytes.resize(static_cast<size_t>(o.result));
    EXPECT_EQ(dalshim_take_pending(o.bytes.data(), o.bytes.size()), o.result);
  });
  auto cpp = run([&](Outcome& o) {
    uint8_t small[8];
    auto n = db_.query_into(kRef, small);
    ASSERT_TRUE(n.ok());
    o.result = *n;
    o.bytes.resize(static_cast<size_t>(*n));
    auto m = db_.take_pending(o.bytes);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(*m, *n);
  });
  EXPECT_EQ(c.bytes, kRefResponse);
  expect_same(c, cpp, "too small, then take_pending");
  // query_to does the same flow in one call, from a small vector.
  auto to = run([&](Outcome& o) {
    dalshim::Bytes out(8);
    out.shrink_to_fit();
    auto n = db_.query_to(kRef, out);
    ASSERT_TRUE(n.ok());
    o.bytes.assign(out.begin(), out.end());
    o.result = static_cast<int64_t>(*n);
  });
  EXPECT_EQ(to.bytes, kRefResponse);
  EXPECT_EQ(to.deltas, c.deltas);
}

TEST_F(Equivalence, ModeA) {
  std::vector<int64_t> held_c, held_cpp;
  auto c = run([&](Outcome& o) {
    void* p = dalshim_query(h_, kRef.data(), kRef.size());
    ASSERT_NE(p, nullptr) << dalshim_last_error();
    o.result = dalshim_buffer_size(p);
    o.bytes.assign(static_cast<uint8_t*>(p), static_cast<uint8_t*>(p) + o.result);
    held_c = watched();
    EXPECT_EQ(dalshim_free(p), DALSHIM_OK);
  });
  auto cpp = run([&](Outcome& o) {
    auto b = db_.query(kRef);
    ASSERT_TRUE(b.ok()) << b.error().message();
    o.result = static_cast<int64_t>(b->size());
    o.bytes.assign(b->data(), b->data() + b->size());
    held_cpp = watched();
  });
  EXPECT_EQ(c.bytes, kRefResponse);
  expect_same(c, cpp, "mode (a)");
  // While held, both count one live 34-byte buffer.
  EXPECT_EQ(held_c[4], held_cpp[4]);
  EXPECT_EQ(held_c[5], held_cpp[5]);
}

TEST_F(Equivalence, MalformedRequestFailsAlike) {
  const std::vector<uint8_t> garbage = {0xc1, 0x00};
  auto c = run([&](Outcome& o) {
    uint8_t buf[64];
    o.result = dalshim_query_into(h_, garbage.data(), garbage.size(), buf, sizeof buf);
  });
  auto cpp = run([&](Outcome& o) {
    uint8_t buf[64];
    auto n = db_.query_into(garbage, buf);
    ASSERT_FALSE(n.ok());
    o.result = n.error().code();
    EXPECT_EQ(n.error().message(), dalshim_last_error());
  });
  EXPECT_EQ(c.result, DAL_E_DECODE);
  expect_same(c, cpp, "malformed request");
  // Mode (a) reports the same failure the same way.
  auto ca = run([&](Outcome& o) {
    o.result = dalshim_query(h_, garbage.data(), garbage.size()) == nullptr ? dalshim_last_error_code() : 0;
  });
  auto cppa = run([&](Outcome& o) {
    auto b = db_.query(garbage);
    o.result = b ? 0 : b.error().code();
  });
  expect_same(ca, cppa, "malformed request, mode (a)");
}

TEST_F(Equivalence, NothingPendingFailsAlike) {
  auto c = run([&](Outcome& o) {
    uint8_t buf[64];
    o.result = dalshim_take_pending(buf, sizeof buf);
  });
  auto cpp = run([&](Outcome& o) {
    uint8_t buf[64];
    auto n = db_.take_pending(buf);
    o.result = n ? *n : n.error().code();
  });
  EXPECT_EQ(c.result, DAL_E_MISUSE);
  expect_same(c, cpp, "take_pending with nothing pending");
}

TEST_F(Equivalence, ClosedHandleIsClosedOnBothSurfaces) {
  auto c = run([&](Outcome& o) {
    EXPECT_EQ(dalshim_close(h_), DALSHIM_OK);
    uint8_t buf[64];
    o.result = dalshim_query_into(h_, kRef.data(), kRef.size(), buf, sizeof buf);
    EXPECT_EQ(dalshim_close(h_), DALSHIM_E_CLOSED);
  });
  h_ = 0;
  auto cpp = run([&](Outcome& o) {
    EXPECT_TRUE(db_.close().ok());
    uint8_t buf[64];
    auto n = db_.query_into(kRef, buf);
    ASSERT_FALSE(n.ok());
    o.result = n.error().code();
    EXPECT_TRUE(db_.close().ok());  // idempotent on the object
  });
  EXPECT_EQ(c.result, DALSHIM_E_CLOSED);
  EXPECT_EQ(c.result, cpp.result);
  EXPECT_EQ(c.last_code, cpp.last_code);
  EXPECT_NE(c.last_message.find("is closed"), std::string::npos) << c.last_message;
  EXPECT_NE(cpp.last_message.find("is closed"), std::string::npos) << cpp.last_message;
  EXPECT_EQ(c.deltas, (std::vector<int64_t>{1, 87, 0, 2, 0, 0, -1, 0}));
  EXPECT_EQ(cpp.deltas, (std::vector<int64_t>{1, 87, 0, 1, 0, 0, -1, 0}));  // no second dal_close
}

TEST_F(Equivalence, ShimPlantOpensOnBothSurfaces) {
  // The drift bug: Database::open used to forward plant_leak=shim_malloc to
  // the DAL, which refused it with DAL_E_OPTIONS.
  const std::string opts = "plant_leak=shim_malloc;plant_leak_bytes=16";
  int64_t hc = 0;
  auto c = run([&](Outcome& o) {
    hc = dalshim_open(dir_.path().c_str(), opts.c_str());
    o.result = hc > 0 ? 1 : hc;
    for (int i = 0; i < 64; ++i) {  // 64 x 16 B = one 1 KiB block
      uint8_t buf[64];
      ASSERT_EQ(dalshim_query_into(hc, kRef.data(), kRef.size(), buf, sizeof buf), 34);
    }
  });
  Database planted;
  auto cpp = run([&](Outcome& o) {
    auto db = Database::open(dir_.path(), opts);
    ASSERT_TRUE(db.ok()) << db.error().message();
    planted = std::move(*db);
    o.result = 1;
    for (int i = 0; i < 64; ++i) {
      uint8_t buf[64];
      auto n = planted.query_into(kRef, buf);
      ASSERT_TRUE(n.ok());
      ASSERT_EQ(*n, 34);
    }
  });
  EXPECT_EQ(c.deltas[7], 1024) << "planted bytes";
  expect_same(c, cpp, "open with the shim's plant, then 64 queries");
  EXPECT_EQ(dalshim_close(hc), DALSHIM_OK);
}

TEST_F(Equivalence, BadOptionsFailAlike) {
  for (const char* opts :
       {"plant_leak=shim_malloc;plant_leak_bytes=2000000", "plant_leak=shim_malloc;plant_leak_bytes=1e3",
        "plant_leak_bytes= 16", "max_readers=2;max_readers=3", "max_readers", "no_such_option=1"}) {
    auto c = run([&](Outcome& o) { o.result = dalshim_open(dir_.path().c_str(), opts); });
    auto cpp = run([&](Outcome& o) {
      auto db = Database::open(dir_.path(), opts);
      o.result = db ? 1 : db.error().code();
    });
    EXPECT_EQ(c.result, DAL_E_OPTIONS) << opts << ": " << c.last_message;
    expect_same(c, cpp, opts);
  }
}

TEST_F(Equivalence, StatsMisuseMatchesTheDal) {
  Library* lib = Library::loaded_default();
  ASSERT_NE(lib, nullptr);
  int64_t v[4];
  EXPECT_EQ(dalshim_stats(0, v, -1), lib->stats(0, v, -1)) << "negative capacity";
  EXPECT_EQ(dalshim_stats(0, nullptr, 3), lib->stats(0, nullptr, 3)) << "NULL values";
  EXPECT_EQ(dalshim_stats(0, nullptr, -1), lib->stats(0, nullptr, -1)) << "both";
  EXPECT_EQ(dalshim_stats(0, nullptr, 0), 0);
}
