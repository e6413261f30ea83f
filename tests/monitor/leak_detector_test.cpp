// The leak rule on synthetic series with known answers, for every layer.
#include <gtest/gtest.h>

#include <algorithm>

#include "synthetic.hpp"

using dalmon::Layer;
using dalmon::VerdictStatus;
using namespace synth;

namespace {

class EveryLayer : public ::testing::TestWithParam<int> {
 protected:
  Layer layer() const { return static_cast<Layer>(GetParam()); }
  bool counts() const { return is_count_layer(layer()); }
  double base() const { return base_of(layer()); }
  void expect(const dalmon::MetricSeries& s, VerdictStatus want) {
    auto v = judge(layer(), s);
    EXPECT_EQ(v.status, want) << dalmon::layer_info(layer()).name << ": " << v.reason;
    EXPECT_EQ(v.layer, layer());
  }
};

std::string layer_name(const ::testing::TestParamInfo<int>& i) {
  return std::string(dalmon::layer_info(static_cast<Layer>(i.param)).name);
}

TEST_P(EveryLayer, FlatIsNoLeak) {
  expect(make([&](double) { return base(); }), VerdictStatus::NoLeak);
}

TEST_P(EveryLayer, FlatWithNoiseIsNoLeak) {
  Lcg r;
  if (counts()) {
    // In-flight objects at a sample point: 0..3 with several threads.
    expect(make([&](double) { return std::floor((r.next() + 1) * 2); }), VerdictStatus::NoLeak);
  } else {
    // Noise up to 40 % of the growth threshold either way.
    double amp = 0.4 * dalmon::default_thresholds()[GetParam()].min_growth;
    expect(make([&](double) { return base() + amp * r.next(); }), VerdictStatus::NoLeak);
  }
}

TEST_P(EveryLayer, WarmupThenPlateauIsNoLeak) {
  // Grows fast while caches, pools and JIT fill (until 15 % of the run),
  // then stays: the plateau the bun#20845 report mistook for a leak.
  double rise = counts() ? 16 : 48 * kMiB;
  expect(make([&](double q) { return base() + rise * std::min(q, 150'000.0) / 150'000.0; }), VerdictStatus::NoLeak);
}

TEST_P(EveryLayer, GrowthDuringWarmupIsExcluded) {
  // Growth through a long warm-up (90 % of the run: 0..890k), flat
  // afterwards.  Judged over the whole run its block minima rise in every
  // window, the last included, and slope and growth are far over the
  // limits: a leak.  With warm-up excluded only the flat tail is judged: no
  // leak.  So this fails if the rule ignores the warm-up boundary (unlike
  // the plateau tests, which the persistence rule alone passes).
  const double rise = counts() ? 100 : 48 * kMiB;
  const auto s = make([&](double q) { return std::floor(base() + rise * std::min(q, 890'000.0) / 890'000.0); });
  auto whole_run = judge(layer(), s, 0.0);
  ASSERT_EQ(whole_run.status, VerdictStatus::Leak)
      << "the series must look like a leak when warm-up is included: " << whole_run.reason;
  auto v = judge(layer(), s, 0.9 * kQueries);
  EXPECT_EQ(v.status, VerdictStatus::NoLeak) << v.reason;
  EXPECT_EQ(s.summarize(0.9 * kQueries).post_warmup_samples, 11);
  EXPECT_DOUBLE_EQ(s.summarize(0.9 * kQueries).growth_after_warmup, 0.0);
}

TEST_P(EveryLayer, LinearGrowthIsLeak) {
  // 16 bytes per query over 1M queries; for object counts one object per
  // 10,000 queries (100 objects), the same order as one leaked buffer per batch.
  double per_query = counts() ? 1e-4 : 16.0;
  auto v = judge(layer(), make([&](double q) { return std::floor(base() + per_query * q); }));
  EXPECT_EQ(v.status, VerdictStatus::Leak) << v.reason;
  EXPECT_EQ(v.layer, layer());
}

TEST_P(EveryLayer, LinearGrowthWithNoiseIsLeak) {
  Lcg r;
  double per_query = counts() ? 1e-4 : 16.0;
  double amp = counts() ? 1.0 : 0.4 * dalmon::default_thresholds()[GetParam()].min_growth;
  expect(make([&](double q) { return std::floor(base() + per_query * q + amp * (r.next() + 1)); }),
         VerdictStatus::Leak);
}

TEST_P(EveryLayer, SingleStepAfterWarmupIsNoLeak) {
  // One step that then stays flat is a plateau (a pool gained a connection,
  // a cache filled, a new malloc arena): bounded, not per-query growth.
  double step = counts() ? 8 : 32 * kMiB;
  expect(make([&](double q) { return base() + (q >= 500'000 ? step : 0); }), VerdictStatus::NoLeak);
}

TEST_P(EveryLayer, RiseThroughTheFirstWindowsThenFlatIsNoLeak) {
  // A fixed, non-leaking version of a real image library: memory climbs by
  // about 100 MB through warm-up and the first two windows after it
  // (surfaces waiting for GC, pages the allocator keeps), then stays flat.
  // Its block minima rise in 2 of 3 steps, which alone would pass the 2/3
  // rule: only the rule that growth goes on in the last window keeps it
  // from being a leak, so this test fails without that rule.
  const double rise = counts() ? 100 : 100 * kMiB;
  auto v =
      judge(layer(), make([&](double q) { return std::floor(base() + rise * std::min(q, 600'000.0) / 600'000.0); }));
  EXPECT_EQ(v.status, VerdictStatus::NoLeak) << v.reason;
  EXPECT_EQ(v.rising_steps, 2) << v.reason;
  EXPECT_FALSE(v.still_rising) << v.reason;
}

TEST_P(EveryLayer, LeakStartingAfterWarmupIsCaught) {
  // Flat through warm-up and the first window, then 16 B/query (one object
  // per 10,000 queries) from query 500,000 on: the leak a long-lived cache
  // or a late code path starts.  It rises in every window after its start.
  const double per_query = counts() ? 1e-4 : 16.0;
  auto v = judge(layer(), make([&](double q) { return std::floor(base() + per_query * std::max(0.0, q - 500'000)); }));
  EXPECT_EQ(v.status, VerdictStatus::Leak) << v.reason;
  EXPECT_TRUE(v.still_rising) << v.reason;
}

TEST_P(EveryLayer, HundredMegabyteStepAnywhereIsNoLeak) {
  // The foreign library's one-time 100 MB (for counts: 100 objects) wherever
  // it lands: an instant step at any point from the start to three quarters
  // of the run (inside warm-up, at its boundary, in every window after it),
  // and a rise spread over 0..E or 30 %..E for every end E up to 60 %.  Each
  // rises in at most two block steps and never in the last one.
  const double rise = counts() ? 100 : 100 * kMiB;
  for (double at = 0; at <= 750'000; at += 50'000) {
    auto v = judge(layer(), make([&](double q) { return base() + (q >= at ? rise : 0); }));
    EXPECT_EQ(v.status, VerdictStatus::NoLeak) << "step at " << at << ": " << v.reason;
  }
  for (double from : {0.0, 300'000.0}) {
    for (double end = from + 100'000; end <= 600'000; end += 100'000) {
      auto v = judge(layer(), make([&](double q) {
                       return std::floor(base() + rise * std::clamp((q - from) / (end - from), 0.0, 1.0));
                     }));
      EXPECT_EQ(v.status, VerdictStatus::NoLeak) << "rise " << from << ".." << end << ": " << v.reason;
      EXPECT_FALSE(v.still_rising) << "rise " << from << ".." << end << ": " << v.reason;
    }
  }
}

TEST_P(EveryLayer, LeakStartingAnywhereUpToMidRunIsCaught) {
  // 16 B/query (one object per 10,000 queries) from any start between the
  // warm-up boundary and 55 % of the run: caught every time.
  const double per_query = counts() ? 1e-4 : 16.0;
  for (double start = 200'000; start <= 550'000; start += 50'000) {
    auto v = judge(layer(), make([&](double q) { return std::floor(base() + per_query * std::max(0.0, q - start)); }));
    EXPECT_EQ(v.status, VerdictStatus::Leak) << "leak from " << start << ": " << v.reason;
  }
}

TEST_P(EveryLayer, StaircaseIsLeak) {
  // Steady growth that happens in steps (e.g. a slice doubling, or a batch
  // of objects leaked every 100k queries) is still steady growth.
  double step = counts() ? 10 : 2 * kMiB;
  expect(make([&](double q) { return base() + step * std::floor(q / 100'000); }), VerdictStatus::Leak);
}

TEST_P(EveryLayer, SawtoothWithFlatMinimaIsNoLeak) {
  // GC/cache sawtooth: climbs for 50k queries, collected back to the floor.
  // Peaks are high and the last sample may sit on one; minima stay flat.
  double amp = counts() ? 40 : 40 * kMiB;
  expect(make([&](double q) { return base() + amp * std::fmod(q + 30'000, 50'000) / 50'000; }), VerdictStatus::NoLeak);
}

TEST_P(EveryLayer, SawtoothWithRisingMinimaIsLeak) {
  double amp = counts() ? 40 : 40 * kMiB;
  double per_query = counts() ? 1e-4 : 16.0;
  auto v = judge(layer(), make([&](double q) {
                   return std::floor(base() + per_query * q + amp * std::fmod(q + 30'000, 50'000) / 50'000);
                 }));
  EXPECT_EQ(v.status, VerdictStatus::Leak) << v.reason;
  EXPECT_EQ(v.layer, layer());
}

INSTANTIATE_TEST_SUITE_P(Layers, EveryLayer, ::testing::Range(0, dalmon::kLayerCount), layer_name);

TEST(LeakDetector, UnavailableIsNotApplicable) {
  dalmon::MetricSeries s;
  for (double q = 0; q <= kQueries; q += kEvery) s.add(q, int64_t{-1});
  auto v = judge(Layer::JsHeap, s);
  EXPECT_EQ(v.status, VerdictStatus::NotAvailable);
  EXPECT_STREQ(dalmon::verdict_name(v.status), "n/a");
}

TEST(LeakDetector, TooFewSamplesIsInsufficient) {
  dalmon::MetricSeries s;
  for (double q = 0; q <= kQueries; q += 250'000) s.add(q, 16.0 * q);
  auto v = judge(Layer::Malloc, s);
  EXPECT_EQ(v.status, VerdictStatus::Insufficient) << v.reason;
}

TEST(LeakDetector, SmallLeakBelowSlopeLimitIsNotReported) {
  // 0.1 B/query in malloc is below the 0.5 B/query limit: documented blind spot
  // for short runs (it is 10 MB over a 100M-query run, where the slope stays
  // 0.1 -- lower slope.malloc to chase it).
  auto v = judge(Layer::Malloc, make([](double q) { return 64 * kMiB + 0.1 * q; }));
  EXPECT_EQ(v.status, VerdictStatus::NoLeak) << v.reason;
}

TEST(LeakDetector, SlopeAndGrowthAreReported) {
  auto s = make([](double q) { return 1000 + 16.0 * q; });
  auto sum = s.summarize(kWarmup);
  EXPECT_NEAR(sum.slope_per_query, 16.0, 1e-9);
  EXPECT_NEAR(sum.growth_after_warmup, 16.0 * 800'000, 1e-3);
  EXPECT_DOUBLE_EQ(sum.start, 1000);
  EXPECT_DOUBLE_EQ(sum.peak, 1000 + 16.0 * kQueries);
  EXPECT_DOUBLE_EQ(sum.warmup_queries, 200'000);
  EXPECT_EQ(sum.post_warmup_samples, 81);
  EXPECT_EQ(sum.first_post_warmup, 20u);
  auto v = judge(Layer::GoHeap, s);
  EXPECT_EQ(v.block_minima.size(), 4u);
  EXPECT_EQ(v.rising_steps, 3);
  EXPECT_NE(v.reason.find("slope 16 B/query > limit 0.5 B/query"), std::string::npos) << v.reason;
}

TEST(LeakDetector, RunEndingInsideWarmupHasNoPostWarmupFigures) {
  // Before, the summary fell back to the last point (1 post-warm-up sample,
  // growth 0) while the rule counted 0: the two disagreed at this edge.
  dalmon::MetricSeries s;
  for (double q = 0; q <= 150'000; q += kEvery) s.add(q, 1000 + 16.0 * q);
  auto sum = s.summarize(kWarmup);
  EXPECT_TRUE(sum.available);
  EXPECT_EQ(sum.post_warmup_samples, 0);
  EXPECT_EQ(sum.growth_after_warmup, 0);
  EXPECT_EQ(sum.slope_per_query, 0);
  auto v = judge(Layer::GoHeap, s);
  EXPECT_EQ(v.status, VerdictStatus::Insufficient);
  EXPECT_EQ(v.reason, "0 samples after warm-up, need 6");
}

TEST(LeakDetector, SlopeIsStableAtHundredMillionQueries) {
  // x up to 1e8 and y up to ~2 GB must not lose the slope to cancellation.
  dalmon::MetricSeries s;
  for (double q = 0; q <= 1e8; q += 1e6) s.add(q, 400 * kMiB + 0.25 * q);
  EXPECT_NEAR(s.slope_from(20), 0.25, 1e-9);
}

}  // namespace

namespace {

// A PostgreSQL run as the plant tests run it: 50,000 queries sampled every
// 500 (the drivers' default of queries/100).
dalmon::MetricSeries pg_run(const std::function<double(double)>& f) { return make_run(50'000, f); }

dalmon::LayerVerdict judge_pg(Layer layer, const dalmon::MetricSeries& s) { return judge(layer, s, 10'000); }

}  // namespace

TEST(ConnectionLayers, PoolThatFillsDuringWarmupThenStaysFlatIsNoLeak) {
  // pool_size=8 opened one by one over the first 4,000 queries (threads
  // arriving), then flat: the shape of every clean run on PostgreSQL.
  for (Layer l : {Layer::PgConnections, Layer::PgServerSessions}) {
    auto v = judge_pg(l, pg_run([](double q) { return std::min(8.0, 1 + std::floor(q / 500)); }));
    EXPECT_EQ(v.status, VerdictStatus::NoLeak) << v.reason;
  }
}

TEST(ConnectionLayers, PoolThatFillsAfterWarmupIsNoLeak) {
  // The same pool opening its connections late, one every 2,000 queries
  // from query 12,000 to 26,000, then flat: bounded by pool_size, which is
  // the growth threshold, so no staircase of a pool reaches it.
  for (Layer l : {Layer::PgConnections, Layer::PgServerSessions}) {
    auto v = judge_pg(l, pg_run([](double q) { return 1 + std::clamp(std::floor((q - 12'000) / 2'000), 0.0, 7.0); }));
    EXPECT_EQ(v.status, VerdictStatus::NoLeak) << v.reason;
  }
}

TEST(ConnectionLayers, OneConnectionPerThousandQueriesIsLeak) {
  // plant_leak=connection's default: +1 every 1,000 queries (40 after
  // warm-up, 5x the threshold), over a pool that filled during warm-up.
  for (Layer l : {Layer::PgConnections, Layer::PgServerSessions}) {
    auto v =
        judge_pg(l, pg_run([](double q) { return std::min(8.0, 1 + std::floor(q / 500)) + std::floor(q / 1000); }));
    EXPECT_EQ(v.status, VerdictStatus::Leak) << v.reason;
  }
}

TEST(GoroutineLayer, PgxGoroutinesThatComeAndGoAreNoLeak) {
  // The runtime's and pgx's own goroutines (a health check, a context
  // watcher) change the count by a few between samples: no leak; one
  // goroutine per query is.
  Lcg r;
  auto clean = judge_pg(Layer::Goroutines, pg_run([&](double) { return 12 + std::floor((r.next() + 1) * 3); }));
  EXPECT_EQ(clean.status, VerdictStatus::NoLeak) << clean.reason;
  auto leak = judge_pg(Layer::Goroutines, pg_run([](double q) { return 12 + q; }));
  EXPECT_EQ(leak.status, VerdictStatus::Leak) << leak.reason;
}
