// The whole Monitor pipeline: planted leaks in each layer, clean runs,
// errors, a real-process malloc leak, and threads.
#include <gtest/gtest.h>

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "fakes.hpp"

using dalmon::Layer;

namespace {

TEST(Monitor, CleanRunIsNoLeak) {
  auto r = fakes::run_world();
  EXPECT_EQ(r.exit_code, 0) << (r.errors.empty() ? "" : r.errors[0]);
  EXPECT_EQ(r.overall, "no leak");
  EXPECT_TRUE(r.leaking_layers.empty());
  for (const auto& v : r.layers) EXPECT_EQ(v.status, dalmon::VerdictStatus::NoLeak) << v.reason;
}

class PlantedLeak : public ::testing::TestWithParam<int> {};

TEST_P(PlantedLeak, IsCaughtAndNamed) {
  Layer l = static_cast<Layer>(GetParam());
  auto r = fakes::run_world(l);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.overall, "leak");
  ASSERT_EQ(r.leaking_layers.size(), 1u);
  EXPECT_EQ(r.leaking_layers[0], dalmon::layer_info(l).name);
}

INSTANTIATE_TEST_SUITE_P(Layers, PlantedLeak, ::testing::Range(0, dalmon::kLayerCount), [](const auto& i) {
  return std::string(dalmon::layer_info(static_cast<Layer>(i.param)).name);
});

TEST(Monitor, MissingJsFiguresAreNotApplicable) {
  fakes::FakeRun run("queries=100000;sample_every=10000");
  run.sample_to(100'000, 10'000, /*js=*/false);
  auto r = run.m->finish();
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.layers[static_cast<int>(Layer::JsHeap)].status, dalmon::VerdictStatus::NotAvailable);
  EXPECT_EQ(r.layers[static_cast<int>(Layer::JsExternal)].status, dalmon::VerdictStatus::NotAvailable);
  EXPECT_TRUE(run.src.last_force_gc);
}

// No source (no DAL loaded): the DAL's layers are not in the run at all --
// neither judged nor listed as n/a -- and the process layers are judged.
TEST(Monitor, NoSourceMeansNoNativeLayers) {
  dalmon::set_native_stats_source(nullptr);
  fakes::World w;
  dalmon::RunParams p;
  std::string err;
  ASSERT_TRUE(dalmon::parse_run_params("queries=100000;sample_every=10000", p, err));
  dalmon::Monitor m(p, nullptr, std::make_unique<fakes::FakeProbe>(w));
  for (w.q = 0; w.q <= 100'000; w.q += 10'000) ASSERT_GE(m.sample(w.q, {}, err), 0);
  auto r = m.finish();
  ASSERT_EQ(r.layers.size(), 4u);
  const Layer kept[] = {Layer::JsHeap, Layer::JsExternal, Layer::Rss, Layer::Malloc};
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(r.layers[i].layer, kept[i]);
  for (const auto& v : r.layers) EXPECT_FALSE(dalmon::layer_info(v.layer).dal);
  EXPECT_EQ(r.layers[2].status, dalmon::VerdictStatus::NoLeak);        // rss
  EXPECT_EQ(r.layers[0].status, dalmon::VerdictStatus::NotAvailable);  // no JS figures given
  EXPECT_FALSE(r.metrics[static_cast<int>(dalmon::Metric::GoHeapAlloc)].available);
}

// A DAL with no PostgreSQL handle open reports -1 for those figures: their
// layers are not in the run (as the DAL's layers without a DAL), while
// goroutines, which both backends have, is judged.
TEST(Monitor, SqliteRunHasNoPostgresLayers) {
  fakes::FakeRun run("queries=100000;sample_every=10000");
  run.src.postgres = false;
  run.sample_to(100'000, 10'000);
  auto r = run.m->finish();
  EXPECT_EQ(r.exit_code, 0);
  std::vector<std::string> names;
  for (const auto& v : r.layers) names.emplace_back(dalmon::layer_info(v.layer).name);
  EXPECT_EQ(names, (std::vector<std::string>{"js_heap", "js_external", "rss", "malloc", "go_heap", "sqlite",
                                             "dal_buffers", "shim_buffers", "statements", "goroutines"}));
  EXPECT_EQ(run.m->json_report().find("\"layer\":\"pg_"), std::string::npos);
  EXPECT_EQ(run.m->text_report().find("pg_"), std::string::npos) << run.m->text_report();
}

TEST(Monitor, GlobalSourceIsUsed) {
  fakes::World w;
  fakes::FakeSource src(w);
  dalmon::set_native_stats_source(&src);
  dalmon::RunParams p;
  std::string err;
  dalmon::Monitor m(p, nullptr, std::make_unique<fakes::FakeProbe>(w));
  ASSERT_GE(m.sample(0, {}, err), 0);
  dalmon::set_native_stats_source(nullptr);
  EXPECT_EQ(src.reads, 1);
  const auto& go_heap = m.finish().metrics[static_cast<int>(dalmon::Metric::GoHeapAlloc)];
  EXPECT_TRUE(go_heap.available);
  EXPECT_GE(go_heap.start, 3 * fakes::kMiB);  // the fake source's figure
}

TEST(Monitor, ErrorsGiveExitCodeTwoEvenWithALeak) {
  fakes::FakeRun run("queries=1000000;sample_every=10000", Layer::Malloc);
  run.sample_to(1'000'000, 10'000);
  run.m->count(0, 0, 0, 3);
  auto r = run.m->finish();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.overall, "error");
  ASSERT_FALSE(r.errors.empty());
  EXPECT_NE(r.errors[0].find("3 query errors"), std::string::npos);
  ASSERT_EQ(r.leaking_layers.size(), 1u);  // still named, for the report
}

TEST(Monitor, MissingAnswersGiveExitCodeTwo) {
  fakes::FakeRun run("queries=1000000;sample_every=10000");
  run.sample_to(500'000, 10'000);
  auto r = run.m->finish();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.errors.back().find("missing answers: 500,000 of 1,000,000 planned queries answered"), std::string::npos)
      << r.errors.back();
  EXPECT_FALSE(r.interrupted);
  // 31 samples after warm-up (200k..500k): enough for a verdict, marked partial.
  EXPECT_TRUE(r.partial);
  EXPECT_TRUE(r.layers[static_cast<int>(Layer::Malloc)].partial);
}

TEST(Monitor, DriverFailureGivesExitCodeTwo) {
  fakes::World w;
  auto p = dalmon::RunParams{};
  fakes::FakeSource src(w);
  dalmon::Monitor m(p, &src, std::make_unique<fakes::FakeProbe>(w));
  std::string err;
  for (w.q = 0; w.q <= 100; w.q += 10) m.sample(w.q, {}, err);
  m.fail("wrong answer at query 17: e != \"no such table: data\"");
  EXPECT_EQ(m.finish().exit_code, 2);
}

TEST(Monitor, TooFewSamplesIsAnError) {
  fakes::World w;
  dalmon::RunParams p;
  std::string err;
  ASSERT_TRUE(dalmon::parse_run_params("queries=1000", p, err));
  fakes::FakeSource src(w);
  dalmon::Monitor m(p, &src, std::make_unique<fakes::FakeProbe>(w));
  m.sample(0, {}, err);
  m.sample(1000, {}, err);
  m.count(1000, 0, 0, 0);
  auto r = m.finish();
  EXPECT_EQ(r.exit_code, 2);
  ASSERT_EQ(r.errors.size(), 1u);
  // A complete run: the advice to sample more often is the right one.
  EXPECT_EQ(r.errors.back(),
            "a verdict needs at least 6 samples after warm-up (warm-up ends at query 200); this run has 1; "
            "take samples more often (sample_every)");
  EXPECT_FALSE(r.partial);
}

// A run of 1M planned queries, sampled every 10k, stopped at `stop_at`.
dalmon::RunResult interrupted_run(int64_t stop_at, std::optional<Layer> leak, const char* cause) {
  fakes::FakeRun run("queries=1000000;sample_every=10000", leak);
  run.sample_to(stop_at, 10'000);
  run.m->mark_interrupted(cause);
  return run.m->finish();
}

TEST(Monitor, InterruptedRunGivesAPartialVerdict) {
  auto r = interrupted_run(450'000, std::nullopt, "SIGINT");
  EXPECT_EQ(r.exit_code, 2);  // incomplete: no proof of "no leak"
  EXPECT_TRUE(r.interrupted);
  EXPECT_TRUE(r.partial);
  EXPECT_EQ(r.answered, 450'000);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0], "interrupted (SIGINT) after 450,000 of 1,000,000 planned queries");
  for (const auto& v : r.layers) {
    EXPECT_EQ(v.status, dalmon::VerdictStatus::NoLeak) << dalmon::layer_info(v.layer).name << ": " << v.reason;
    EXPECT_TRUE(v.partial);
  }
  // The warm-up boundary stays at 20 % of the PLANNED run.
  EXPECT_EQ(r.warmup_boundary_queries, 200'000);
  EXPECT_EQ(r.post_warmup_samples, 26);
}

TEST(Monitor, InterruptedRunStillNamesALeak) {
  auto r = interrupted_run(600'000, Layer::GoHeap, "");
  EXPECT_EQ(r.exit_code, 2);
  ASSERT_EQ(r.leaking_layers.size(), 1u);
  EXPECT_EQ(r.leaking_layers[0], "go_heap");
  EXPECT_TRUE(r.layers[static_cast<int>(Layer::GoHeap)].partial);
  EXPECT_EQ(r.errors[0], "interrupted after 600,000 of 1,000,000 planned queries");
}

TEST(Monitor, InterruptedDuringWarmupSaysWhatAVerdictNeeds) {
  auto r = interrupted_run(150'000, std::nullopt, "SIGTERM");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(r.partial);
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0], "interrupted (SIGTERM) after 150,000 of 1,000,000 planned queries");
  // No advice about sample_every: the run was cut short, not sampled too rarely.
  EXPECT_EQ(r.errors[1],
            "a verdict needs at least 6 samples after warm-up (warm-up ends at query 200,000); "
            "this run has 0");
  for (const auto& v : r.layers) {
    if (v.status == dalmon::VerdictStatus::NotAvailable) continue;
    EXPECT_EQ(v.status, dalmon::VerdictStatus::Insufficient) << dalmon::layer_info(v.layer).name;
    EXPECT_FALSE(v.partial);
  }
}

TEST(Monitor, InterruptedWithSomeLayersShortOfSamples) {
  // 200k..240k: 5 samples after warm-up, one short of a verdict.
  auto r = interrupted_run(240'000, std::nullopt, "SIGINT");
  EXPECT_EQ(r.post_warmup_samples, 5);
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[1],
            "a verdict needs at least 6 samples after warm-up (warm-up ends at query 200,000); "
            "this run has 5");
}

TEST(Monitor, WarmupIsExcludedThroughTheWholePipeline) {
  // malloc grows by 32 MiB during the first 89 % of the run and then stays.
  // With warmup=0.9 the Monitor must judge only the flat tail: no leak.
  // The same samples with warmup=0 are a leak (growing into the last
  // window), so the first result can only come from the warm-up being
  // excluded.
  auto run = [](const char* warmup) {
    dalmon::RunParams p;
    std::string err;
    if (!dalmon::parse_run_params(std::string("queries=1000000;sample_every=10000;warmup=") + warmup, p, err))
      throw std::runtime_error(err);
    struct RampProbe final : dalmon::ProcessProbe {
      int64_t* q;
      explicit RampProbe(int64_t* queries) : q(queries) {}
      dalmon::ProcessFigures read() noexcept override {
        dalmon::ProcessFigures f;
        f.rss = 64 << 20;
        f.malloc_in_use = (8 << 20) + (32 << 20) * std::min<int64_t>(*q, 890'000) / 890'000;
        return f;
      }
    };
    int64_t q = 0;
    dalmon::Monitor m(p, nullptr, std::make_unique<RampProbe>(&q));
    for (q = 0; q <= 1'000'000; q += 10'000) m.sample(q, {}, err);
    m.count(1'000'000, 0, 0, 0);
    return m.finish().layers[static_cast<int>(Layer::Malloc)];
  };
  dalmon::set_native_stats_source(nullptr);
  auto included = run("0");
  ASSERT_EQ(included.status, dalmon::VerdictStatus::Leak) << included.reason;
  auto excluded = run("0.9");
  EXPECT_EQ(excluded.status, dalmon::VerdictStatus::NoLeak) << excluded.reason;
}

TEST(Monitor, SamplesMustNotGoBackwardsAndNotAfterFinish) {
  fakes::World w;
  fakes::FakeSource src(w);
  dalmon::Monitor m(dalmon::RunParams{}, &src, std::make_unique<fakes::FakeProbe>(w));
  std::string err;
  EXPECT_EQ(m.sample(10, {}, err), 0);
  EXPECT_EQ(m.sample(5, {}, err), -1);
  EXPECT_NE(err.find("backwards"), std::string::npos);
  EXPECT_EQ(m.sample(-1, {}, err), -1);
  m.finish();
  EXPECT_EQ(m.sample(20, {}, err), -1);
  EXPECT_EQ(m.finish().exit_code, m.finish().exit_code);  // idempotent
}

// Real process: LinuxProcessProbe, with 16 B/query of real malloc kept alive.
// Allocations are 1 KiB every 64 queries (glibc rounds tiny blocks up to 32
// bytes, which would plant 32 B/query, not 16) and are written so that RSS
// sees them too.
dalmon::RunResult real_malloc_run(bool leak) {
  dalmon::RunParams p;
  std::string err;
  // Only malloc and RSS exist here; no native source.
  if (!dalmon::parse_run_params("driver=real;queries=1000000;sample_every=10000", p, err)) throw 0;
  dalmon::set_native_stats_source(nullptr);
  dalmon::Monitor m(p);
  std::vector<void*> kept;
  kept.reserve(1'000'000 / 64 + 1);  // reserved up front so the vector itself does not grow
  for (int64_t q = 0; q <= 1'000'000; ++q) {
    if (q % 10'000 == 0) m.sample(q, {}, err);
    if (q % 64 == 0) {
      void* b = std::malloc(1024);
      std::memset(b, 0xA5, 1024);
      if (leak)
        kept.push_back(b);
      else
        std::free(b);
    }
  }
  m.count(1'000'000, 0, 0, 0);
  auto r = m.finish();
  for (void* b : kept) std::free(b);
  return r;
}

// ASan replaces malloc (mallinfo2 then sees nothing) and its quarantine makes
// RSS follow allocation volume, so these real-process checks mean nothing there.
#if defined(__SANITIZE_ADDRESS__)
#define SKIP_UNDER_ASAN() GTEST_SKIP() << "malloc/RSS are not meaningful under ASan"
#else
#define SKIP_UNDER_ASAN() (void)0
#endif

TEST(Monitor, RealProcessMallocLeakIsCaught) {
  SKIP_UNDER_ASAN();
  auto r = real_malloc_run(true);
  EXPECT_EQ(r.exit_code, 1);
  auto& v = r.layers[static_cast<int>(Layer::Malloc)];
  EXPECT_EQ(v.status, dalmon::VerdictStatus::Leak) << v.reason;
  EXPECT_NEAR(r.summary_of(Layer::Malloc).slope_per_query, 16.25, 1.0);
}

TEST(Monitor, RealProcessCleanRunIsNoLeak) {
  SKIP_UNDER_ASAN();
  auto r = real_malloc_run(false);
  EXPECT_EQ(r.exit_code, 0) << r.layers[static_cast<int>(Layer::Malloc)].reason << " / "
                            << r.layers[static_cast<int>(Layer::Rss)].reason;
}

TEST(Monitor, ManyThreadsRecordWhileOneSamples) {
  fakes::World w;
  fakes::FakeSource src(w);
  dalmon::RunParams p;
  std::string err;
  ASSERT_TRUE(dalmon::parse_run_params("threads=4;queries=400000", p, err));
  dalmon::Monitor m(p, &src, std::make_unique<fakes::FakeProbe>(w));
  std::atomic<int64_t> done{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&] {
      for (int i = 0; i < 100'000; ++i) {
        m.record_latency(1000 + i % 100);
        m.count(1, 87, 34, 0);
        done.fetch_add(1, std::memory_order_relaxed);
      }
    });
  int64_t last = -1;
  while (last < 400'000) {
    int64_t d = done.load();
    if (d > last) {
      ASSERT_GE(m.sample(d, {}, err), 0) << err;
      last = d;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  for (auto& t : ts) t.join();
  auto r = m.finish();
  EXPECT_EQ(r.counts.queries, 400'000);
  EXPECT_EQ(r.counts.bytes_in, 87 * 400'000);
  EXPECT_EQ(r.latency.count, 400'000);
}

}  // namespace
