// buffer_registry_test.cpp -- the mode (a) buffer registry on its own, with
// a recording deallocator, so addresses can be reused at will (as malloc
// does) without touching the heap.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "buffer_registry.hpp"
#include "dalshim.h"

using dalshim::detail::BufferRegistry;

namespace {

std::vector<void*> g_deallocated;
void record_deallocation(void* p) { g_deallocated.push_back(p); }

// Fake, distinct, malloc-aligned addresses.
alignas(16) char g_arena[16 * 64];
void* addr(int i) { return &g_arena[16 * i]; }

class Registry : public ::testing::Test {
 protected:
  void SetUp() override { g_deallocated.clear(); }
};

}  // namespace

TEST_F(Registry, LiveSizeReleaseAndCounts) {
  BufferRegistry r(4, 8, record_deallocation);
  ASSERT_TRUE(r.add(addr(0), 10));
  ASSERT_TRUE(r.add(addr(1), 20));
  EXPECT_EQ(r.live(), 2);
  EXPECT_EQ(r.live_bytes(), 30);
  EXPECT_EQ(r.size(addr(1)), 20);
  EXPECT_EQ(r.release(addr(1)), 20);
  EXPECT_EQ(g_deallocated, std::vector<void*>{addr(1)});
  EXPECT_EQ(r.live(), 1);
  EXPECT_EQ(r.live_bytes(), 10);
  EXPECT_EQ(r.size(addr(1)), DALSHIM_E_DOUBLE_FREE);
  EXPECT_EQ(r.release(addr(1)), DALSHIM_E_DOUBLE_FREE);
  EXPECT_EQ(r.release(addr(2)), DALSHIM_E_FOREIGN_POINTER);
  EXPECT_EQ(r.size(addr(2)), DALSHIM_E_FOREIGN_POINTER);
  EXPECT_EQ(g_deallocated.size(), 1u) << "a refused pointer must never be deallocated";
}

TEST_F(Registry, ReusedAddressIsLiveAgain) {
  BufferRegistry r(1, 8, record_deallocation);
  ASSERT_TRUE(r.add(addr(0), 10));
  EXPECT_EQ(r.release(addr(0)), 10);
  ASSERT_TRUE(r.add(addr(0), 5));  // malloc handed the same address out again
  EXPECT_EQ(r.size(addr(0)), 5);
  EXPECT_EQ(r.release(addr(0)), 5);
  EXPECT_EQ(r.release(addr(0)), DALSHIM_E_DOUBLE_FREE);
}

// Regression: the ring used to be mirrored by a hash set that was erased
// when an entry left the ring.  An address freed, reused and freed again
// sat in the ring twice; evicting its OLDER entry erased it from the set,
// so a double free of the NEWER free read as "foreign".
TEST_F(Registry, EvictingAnOlderFreeKeepsTheNewerOne) {
  constexpr size_t kRing = 4;
  BufferRegistry r(1, kRing, record_deallocation);
  ASSERT_TRUE(r.add(addr(0), 1));
  ASSERT_EQ(r.release(addr(0)), 1);  // ring: [A]
  ASSERT_TRUE(r.add(addr(0), 1));    // A reused
  ASSERT_EQ(r.release(addr(0)), 1);  // ring: [A, A]
  // Push kRing - 2 other frees, then one more: the older A is overwritten.
  for (int i = 1; i <= static_cast<int>(kRing) - 1; ++i) {
    ASSERT_TRUE(r.add(addr(i), 1));
    ASSERT_EQ(r.release(addr(i)), 1);
  }
  EXPECT_EQ(r.release(addr(0)), DALSHIM_E_DOUBLE_FREE);
  EXPECT_EQ(r.size(addr(0)), DALSHIM_E_DOUBLE_FREE);
  // Once every entry for A has left the ring, A reads as foreign (documented).
  for (int i = 10; i < 10 + static_cast<int>(kRing); ++i) {
    ASSERT_TRUE(r.add(addr(i), 1));
    ASSERT_EQ(r.release(addr(i)), 1);
  }
  EXPECT_EQ(r.release(addr(0)), DALSHIM_E_FOREIGN_POINTER);
}

TEST_F(Registry, ConcurrentAddAndReleaseKeepCountsExact) {
  BufferRegistry r;  // std::free: real malloc()ed buffers
  auto worker = [&] {
    for (int i = 0; i < 20000; ++i) {
      void* p = std::malloc(32);
      ASSERT_NE(p, nullptr);
      ASSERT_TRUE(r.add(p, 32));
      ASSERT_EQ(r.size(p), 32);
      ASSERT_EQ(r.release(p), 32);
    }
  };
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t) ts.emplace_back(worker);
  for (auto& t : ts) t.join();
  EXPECT_EQ(r.live(), 0);
  EXPECT_EQ(r.live_bytes(), 0);
}
