// tracer_test.cpp -- libdalkit_tracer.so in a real process: this program is
// run with LD_PRELOAD=libdalkit_tracer.so (ctest ENVIRONMENT), allocates
// through two test DSOs (libtracer_leaky_a.so, libtracer_leaky_b.so, from
// leaky.cpp) and reads the figures through the C ABI, found with
// dlsym(RTLD_DEFAULT) exactly as the monitor will find it.
//
// Registered twice (CMakeLists.txt): tracer_exact runs Exact.* and Both.*
// with DALKIT_TRACER_SAMPLE_BYTES=0, tracer_sampled runs Sampled.* and Both.*
// with 32 KiB sampling and a fixed seed.
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "dalkit_tracer.h"

extern "C" {
#define LEAKY_DECLARE(p)                    \
  void* p##_malloc(size_t);                 \
  void* p##_calloc(size_t, size_t);         \
  void* p##_realloc(void*, size_t);         \
  void p##_free(void*);                     \
  void* p##_posix_memalign(size_t, size_t); \
  void* p##_aligned_alloc(size_t, size_t);  \
  void* p##_memalign(size_t, size_t);       \
  void* p##_valloc(size_t);                 \
  char* p##_strdup(const char*);            \
  char* p##_new_array(size_t);              \
  void p##_delete_array(char*);             \
  void* p##_mmap_anon(size_t);              \
  void* p##_mmap_reserve(size_t);           \
  void* p##_mmap_file(int, size_t);         \
  int p##_munmap(void*, size_t);            \
  void* p##_early_block(void);              \
  size_t p##_early_size(void);
LEAKY_DECLARE(leaky_a)
LEAKY_DECLARE(leaky_b)
}

namespace {

// The C ABI, looked up at run time: the test binary does not link the tracer.
struct Tracer {
  int32_t (*version)(void);
  int64_t (*stat)(int32_t);
  int32_t (*dso_count)(void);
  const char* (*dso_name)(int32_t);
  const char* (*dso_path)(int32_t);
  int64_t (*dso_stat)(int32_t, int32_t);
  int32_t (*snapshot)(int64_t*, int32_t);
  int32_t (*report_fd)(int32_t);
};

template <typename T>
void find(T& fn, const char* name) {
  fn = reinterpret_cast<T>(dlsym(RTLD_DEFAULT, name));
}

const Tracer& tracer() {
  static const Tracer t = [] {
    Tracer r{};
    find(r.version, "dalkit_tracer_version");
    find(r.stat, "dalkit_tracer_stat");
    find(r.dso_count, "dalkit_tracer_dso_count");
    find(r.dso_name, "dalkit_tracer_dso_name");
    find(r.dso_path, "dalkit_tracer_dso_path");
    find(r.dso_stat, "dalkit_tracer_dso_stat");
    find(r.snapshot, "dalkit_tracer_snapshot");
    find(r.report_fd, "dalkit_tracer_report_fd");
    return r;
  }();
  return t;
}

int32_t dso_index(const char* name) {
  for (int32_t i = 0; i < tracer().dso_count(); ++i) {
    if (std::strcmp(tracer().dso_name(i), name) == 0) return i;
  }
  return -1;
}

// One DSO's figures.
struct Figures {
  int64_t live, allocs_live, allocs, frees, mmap, regions, resident;
};
Figures figures(const char* dso) {
  int32_t i = dso_index(dso);
  EXPECT_GE(i, 0) << dso << " is not in the tracer's DSO table";
  const Tracer& t = tracer();
  return Figures{t.dso_stat(i, DALKIT_TRACER_LIVE_BYTES),   t.dso_stat(i, DALKIT_TRACER_LIVE_ALLOCS),
                 t.dso_stat(i, DALKIT_TRACER_ALLOCS),       t.dso_stat(i, DALKIT_TRACER_FREES),
                 t.dso_stat(i, DALKIT_TRACER_MMAP_BYTES),   t.dso_stat(i, DALKIT_TRACER_MMAP_REGIONS),
                 t.dso_stat(i, DALKIT_TRACER_MMAP_RESIDENT)};
}
const char* const kA = "libtracer_leaky_a.so";
const char* const kB = "libtracer_leaky_b.so";
int64_t live(const char* dso) { return figures(dso).live; }

class TracerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(tracer().version, nullptr) << "libdalkit_tracer.so is not preloaded (LD_PRELOAD)";
    ASSERT_EQ(tracer().version(), DALKIT_TRACER_VERSION_NUMBER);
    ASSERT_EQ(tracer().stat(DALKIT_TRACER_ACTIVE), 1);
  }
};
using Both = TracerTest;
using Exact = TracerTest;
using Sampled = TracerTest;

// ---------------------------------------------------------------------------
// Both modes

TEST_F(Both, DsoTableNamesTheProcessParts) {
  const Tracer& t = tracer();
  EXPECT_STREQ(t.dso_name(0), "[unknown]");
  EXPECT_STREQ(t.dso_name(1), "[anon]");
  EXPECT_EQ(t.dso_name(-1), nullptr);
  EXPECT_EQ(t.dso_name(t.dso_count()), nullptr);
  EXPECT_EQ(t.dso_stat(t.dso_count(), DALKIT_TRACER_LIVE_BYTES), DALKIT_TRACER_E_RANGE);
  EXPECT_EQ(t.dso_stat(0, DALKIT_TRACER_STAT_COUNT), DALKIT_TRACER_E_RANGE);
  EXPECT_EQ(t.stat(DALKIT_TRACER_PROCESS_STAT_COUNT), DALKIT_TRACER_E_RANGE);
  int32_t exe = dso_index("tracer_test");
  ASSERT_GE(exe, 0);
  EXPECT_EQ(t.dso_stat(exe, DALKIT_TRACER_FLAGS), DALKIT_TRACER_FLAG_MAIN);
  int32_t libc = dso_index("libc.so.6");
  ASSERT_GE(libc, 0);
  EXPECT_EQ(t.dso_stat(libc, DALKIT_TRACER_FLAGS), DALKIT_TRACER_FLAG_SKIPPED);
  EXPECT_EQ(t.dso_stat(dso_index("libdalkit_tracer.so"), DALKIT_TRACER_FLAGS), DALKIT_TRACER_FLAG_SKIPPED);
  EXPECT_EQ(t.dso_stat(dso_index(kA), DALKIT_TRACER_FLAGS), 0);
  EXPECT_NE(std::strstr(t.dso_path(dso_index(kA)), "/libtracer_leaky_a.so"), nullptr);
}

TEST_F(Both, SnapshotRowsAreTheDsoStats) {
  const Tracer& t = tracer();
  EXPECT_EQ(t.snapshot(nullptr, 1), DALKIT_TRACER_E_NULL);
  EXPECT_EQ(t.snapshot(nullptr, -1), DALKIT_TRACER_E_RANGE);
  int32_t count = t.snapshot(nullptr, 0);
  ASSERT_GE(count, 2);
  // Nothing in this block allocates through leaky_a, so its row is stable.
  std::vector<int64_t> rows(size_t(count + 8) * DALKIT_TRACER_STAT_COUNT);
  void* p = leaky_a_malloc(1234);
  ASSERT_EQ(t.snapshot(rows.data(), count + 8), count);
  int32_t a = dso_index(kA);
  for (int32_t s = 0; s < DALKIT_TRACER_STAT_COUNT; ++s) {
    EXPECT_EQ(rows[size_t(a) * DALKIT_TRACER_STAT_COUNT + size_t(s)], t.dso_stat(a, s)) << "stat " << s;
  }
  leaky_a_free(p);
}

TEST_F(Both, BlockAllocatedBeforeTheTracerStartedIsFreedSafely) {
  // leaky_a's constructor ran before the tracer's, so this block was not
  // recorded: freeing it must neither crash nor move A's figures.
  void* early = leaky_a_early_block();
  ASSERT_NE(early, nullptr);
  Figures before = figures(kA);
  leaky_a_free(early);
  Figures after = figures(kA);
  EXPECT_EQ(after.live, before.live);
  EXPECT_EQ(after.frees, before.frees);
}

TEST_F(Both, DlsymAndDlerrorDoNotCrash) {
  // dlsym's error path allocates (the message buffer) inside the loader.
  EXPECT_EQ(dlsym(RTLD_NEXT, "dalkit_no_such_symbol"), nullptr);
  EXPECT_NE(dlerror(), nullptr);
  void* self = dlopen(nullptr, RTLD_NOW);
  EXPECT_NE(self, nullptr);
  dlclose(self);
}

TEST_F(Both, ReportListsTheDsoHoldingMemory) {
  void* p = leaky_a_malloc(10 << 20);
  FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(tracer().report_fd(fileno(f)), 0);
  EXPECT_EQ(tracer().report_fd(-1), DALKIT_TRACER_E_IO);
  std::rewind(f);
  std::string text;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  std::fclose(f);
  leaky_a_free(p);
  EXPECT_NE(text.find("dalkit tracer: "), std::string::npos) << text;
  EXPECT_NE(text.find(" libtracer_leaky_a.so\n"), std::string::npos) << text;
}

// ---------------------------------------------------------------------------
// Exact mode: every byte

TEST_F(Exact, ModeIsExact) {
  EXPECT_EQ(tracer().stat(DALKIT_TRACER_SAMPLE_BYTES), 0);
  EXPECT_GE(tracer().stat(DALKIT_TRACER_TABLE_SLOTS), int64_t{1} << 22);
}

TEST_F(Exact, EveryAllocationFunctionChargesTheCallingDso) {
  struct Case {
    const char* what;
    int64_t bytes;
    void* (*alloc)();
  };
  const Case cases[] = {
      {"malloc", 1000, [] { return leaky_a_malloc(1000); }},
      {"calloc", 10 * 100, [] { return leaky_a_calloc(10, 100); }},
      {"posix_memalign", 1000, [] { return leaky_a_posix_memalign(64, 1000); }},
      {"aligned_alloc", 1024, [] { return leaky_a_aligned_alloc(256, 1024); }},
      {"memalign", 3000, [] { return leaky_a_memalign(128, 3000); }},
      {"valloc", 5000, [] { return leaky_a_valloc(5000); }},
      // Through libc and libstdc++: the tracer looks through them.
      {"strdup", 6, [] { return static_cast<void*>(leaky_a_strdup("hello")); }},
      {"new[]", 300, [] { return static_cast<void*>(leaky_a_new_array(300)); }},
  };
  for (const Case& c : cases) {
    Figures a0 = figures(kA), b0 = figures(kB);
    void* p = c.alloc();
    ASSERT_NE(p, nullptr) << c.what;
    Figures a1 = figures(kA);
    EXPECT_EQ(a1.live - a0.live, c.bytes) << c.what;
    EXPECT_EQ(a1.allocs_live - a0.allocs_live, 1) << c.what;
    EXPECT_EQ(a1.allocs - a0.allocs, 1) << c.what;
    EXPECT_EQ(figures(kB).live, b0.live) << c.what;
    if (std::strcmp(c.what, "new[]") == 0) {
      leaky_a_delete_array(static_cast<char*>(p));
    } else {
      leaky_a_free(p);
    }
    Figures a2 = figures(kA);
    EXPECT_EQ(a2.live, a0.live) << c.what << ": back to the baseline after the free";
    EXPECT_EQ(a2.allocs_live, a0.allocs_live) << c.what;
    EXPECT_EQ(a2.frees - a0.frees, 1) << c.what;
  }
}

TEST_F(Exact, LeakedBlocksAddUpAndReturnToBaseline) {
  int64_t a0 = live(kA), b0 = live(kB);
  std::vector<void*> a, b;
  int64_t want_a = 0, want_b = 0;
  for (int i = 1; i <= 1000; ++i) {
    a.push_back(leaky_a_malloc(size_t(i)));
    want_a += i;
    b.push_back(leaky_b_calloc(2, size_t(i)));
    want_b += 2 * i;
  }
  EXPECT_EQ(live(kA) - a0, want_a);
  EXPECT_EQ(live(kB) - b0, want_b);
  for (void* p : a) leaky_a_free(p);
  for (void* p : b) leaky_b_free(p);
  EXPECT_EQ(live(kA), a0);
  EXPECT_EQ(live(kB), b0);
}

TEST_F(Exact, ReallocKeepsTheChargeWithTheBlocksDso) {
  int64_t a0 = live(kA), b0 = live(kB);
  void* p = leaky_a_malloc(100);
  EXPECT_EQ(live(kA) - a0, 100);
  p = leaky_a_realloc(p, 100000);  // grows (and moves: a new chunk)
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(live(kA) - a0, 100000);
  p = leaky_b_realloc(p, 50);  // B resizes A's block: still A's
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(live(kA) - a0, 50);
  EXPECT_EQ(live(kB), b0);
  leaky_b_free(p);
  EXPECT_EQ(live(kA), a0);
  EXPECT_EQ(live(kB), b0);

  void* q = leaky_b_realloc(nullptr, 64);  // realloc(NULL, n) is B's malloc
  EXPECT_EQ(live(kB) - b0, 64);
  EXPECT_EQ(leaky_b_realloc(q, 0), nullptr);  // glibc: realloc(p, 0) frees p
  EXPECT_EQ(live(kB), b0);
  EXPECT_EQ(live(kA), a0);
}

TEST_F(Exact, BlockFreedByAnotherDsoLeavesBothAtBaseline) {
  Figures a0 = figures(kA), b0 = figures(kB);
  void* p = leaky_a_malloc(777);
  EXPECT_EQ(live(kA) - a0.live, 777);
  leaky_b_free(p);
  Figures a1 = figures(kA), b1 = figures(kB);
  EXPECT_EQ(a1.live, a0.live);
  EXPECT_EQ(a1.frees - a0.frees, 1);  // the free counts for the allocating DSO
  EXPECT_EQ(b1.live, b0.live);
  EXPECT_EQ(b1.frees, b0.frees);
  leaky_b_free(nullptr);  // free(NULL) is a no-op, for the tracer too
  EXPECT_EQ(figures(kB).frees, b0.frees);
}

TEST_F(Exact, AnonymousMappingsAreChargedFileMappingsAndReservationsAreNot) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  Figures a0 = figures(kA);
  char* p = static_cast<char*>(leaky_a_mmap_anon(1 << 20));
  ASSERT_NE(p, nullptr);
  Figures a1 = figures(kA);
  EXPECT_EQ(a1.mmap - a0.mmap, 1 << 20);
  EXPECT_EQ(a1.regions - a0.regions, 1);
  EXPECT_EQ(a1.live, a0.live) << "mmap bytes are not malloc bytes";
  // Resident: what was touched, not what was mapped (an arena reserved up front).
  EXPECT_EQ(a1.resident, a0.resident) << "an untouched read-write mapping holds no memory yet";
  for (size_t off = 0; off < (256u << 10); off += page) p[off] = 1;
  EXPECT_EQ(figures(kA).resident - a0.resident, 256 << 10);
  // A hole in the middle splits the region; B unmapping it changes A's figure.
  ASSERT_EQ(leaky_b_munmap(p + 4 * page, page), 0);
  Figures a2 = figures(kA);
  EXPECT_EQ(a2.mmap - a0.mmap, int64_t(1 << 20) - int64_t(page));
  EXPECT_EQ(a2.regions - a0.regions, 2);
  EXPECT_EQ(a2.resident - a0.resident, int64_t(256 << 10) - int64_t(page)) << "the hole was a touched page";
  ASSERT_EQ(leaky_a_munmap(p, 1 << 20), 0);  // the rest, hole included
  Figures a3 = figures(kA);
  EXPECT_EQ(a3.mmap, a0.mmap);
  EXPECT_EQ(a3.regions, a0.regions);
  EXPECT_EQ(a3.resident, a0.resident);

  int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  void* f = leaky_a_mmap_file(fd, page);
  close(fd);
  ASSERT_NE(f, nullptr);
  void* r = leaky_a_mmap_reserve(64 << 20);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(figures(kA).mmap, a0.mmap) << "a file mapping or a PROT_NONE reservation is no allocation";
  EXPECT_EQ(leaky_a_munmap(f, page), 0);
  EXPECT_EQ(leaky_a_munmap(r, 64 << 20), 0);
  EXPECT_EQ(figures(kA).mmap, a0.mmap);
}

TEST_F(Exact, FourThreadsKeepTheTotalsConsistent) {
  constexpr int kThreads = 4, kIterations = 20000;
  int64_t a0 = live(kA), b0 = live(kB);
  std::vector<std::vector<void*>> kept(kThreads);
  std::vector<int64_t> kept_bytes(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      kept[size_t(t)].reserve(kIterations);
      for (int i = 0; i < kIterations; ++i) {
        size_t n = size_t(1 + (i * 7 + t) % 512);
        void* a = leaky_a_malloc(n);
        void* b = leaky_b_malloc(n);
        leaky_a_free(b);  // each frees the other's block: charges stay put
        if (i % 2 == 0) {
          kept[size_t(t)].push_back(a);
          kept_bytes[size_t(t)] += int64_t(n);
        } else {
          leaky_b_free(a);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  int64_t want = 0;
  for (int64_t n : kept_bytes) want += n;
  EXPECT_EQ(live(kA) - a0, want);
  EXPECT_EQ(live(kB), b0);
  EXPECT_EQ(tracer().stat(DALKIT_TRACER_DROPPED), 0);
  for (auto& v : kept) {
    for (void* p : v) leaky_a_free(p);
  }
  EXPECT_EQ(live(kA), a0);
}

// ---------------------------------------------------------------------------
// Sampled mode (DALKIT_TRACER_SAMPLE_BYTES=32k, DALKIT_TRACER_SEED=17)

TEST_F(Sampled, ModeIsSampled) { EXPECT_EQ(tracer().stat(DALKIT_TRACER_SAMPLE_BYTES), 32768); }

// The kit's reference leak: 16 B per iteration, 1,000,000 iterations.  At a
// mean of 32 KiB between samples the 16 MB are ~490 samples, so the estimate's
// standard deviation is ~4.5% and +-15% is more than 3 of them.
TEST_F(Sampled, EstimatesA16MegabyteLeakOfSixteenByteBlocks) {
  constexpr int kBlocks = 1000000;
  constexpr double kBytes = 16.0 * kBlocks;
  std::vector<void*> blocks;
  blocks.reserve(kBlocks);
  Figures a0 = figures(kA), b0 = figures(kB);
  for (int i = 0; i < kBlocks; ++i) blocks.push_back(leaky_a_malloc(16));
  Figures a1 = figures(kA);
  EXPECT_NEAR(double(a1.live - a0.live), kBytes, 0.15 * kBytes);
  EXPECT_NEAR(double(a1.allocs_live - a0.allocs_live), kBlocks, 0.15 * kBlocks);
  EXPECT_EQ(figures(kB).live, b0.live) << "B allocated nothing";
  // Freed (by the other DSO), every estimate returns exactly to the baseline.
  for (void* p : blocks) leaky_b_free(p);
  EXPECT_EQ(figures(kA).live, a0.live);
  EXPECT_EQ(figures(kA).allocs_live, a0.allocs_live);
  EXPECT_EQ(figures(kB).live, b0.live);
}

TEST_F(Sampled, LargeBlocksAreAlwaysSampledAtTheirSize) {
  // p(s) = 1 - exp(-s/T) is 1 for s >> T: a 64 MiB block weighs its size.
  int64_t a0 = live(kA);
  void* p = leaky_a_malloc(64 << 20);
  EXPECT_EQ(live(kA) - a0, int64_t(64) << 20);
  leaky_a_free(p);
  EXPECT_EQ(live(kA), a0);
}

TEST_F(Sampled, FourThreadsEstimateTheirTotal) {
  constexpr int kThreads = 4, kBlocks = 100000;
  constexpr double kBytes = 64.0 * kBlocks * kThreads;  // 25.6 MB: ~780 samples, sd ~3.6%
  int64_t a0 = live(kA), b0 = live(kB);
  std::vector<std::vector<void*>> kept(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      kept[size_t(t)].reserve(kBlocks);
      for (int i = 0; i < kBlocks; ++i) {
        kept[size_t(t)].push_back(leaky_a_malloc(64));
        leaky_b_free(leaky_b_malloc(64));  // churn that must not add up
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_NEAR(double(live(kA) - a0), kBytes, 0.15 * kBytes);
  EXPECT_EQ(live(kB), b0);
  for (auto& v : kept) {
    for (void* p : v) leaky_b_free(p);
  }
  EXPECT_EQ(live(kA), a0);
}

}  // namespace
