// Percentile accuracy against known distributions, and concurrent recording.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include "latency_histogram.hpp"

using dalmon::LatencyHistogram;

namespace {

int64_t exact_percentile(std::vector<int64_t> v, double p) {
  std::sort(v.begin(), v.end());
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * v.size()));
  return v[std::max<size_t>(rank, 1) - 1];
}

void check_against(const std::vector<int64_t>& values) {
  LatencyHistogram h;
  for (int64_t v : values) h.record(v);
  auto s = h.summary();
  ASSERT_EQ(s.count, static_cast<int64_t>(values.size()));
  for (double p : {50.0, 97.5, 99.0}) {
    double want = static_cast<double>(exact_percentile(values, p));
    double got = static_cast<double>(h.percentile(p));
    EXPECT_NEAR(got, want, want * 0.02 + 1) << "p" << p;
    // The design bound is tighter than the promise: half a sub-bucket.
    EXPECT_NEAR(got, want, want / 256.0 + 1) << "p" << p;
  }
  EXPECT_EQ(s.p50, h.percentile(50));
  EXPECT_EQ(s.max, *std::max_element(values.begin(), values.end()));
  EXPECT_EQ(s.min, *std::min_element(values.begin(), values.end()));
  double mean = 0;
  for (int64_t v : values) mean += static_cast<double>(v);
  mean /= static_cast<double>(values.size());
  double var = 0;
  for (int64_t v : values) var += (v - mean) * (v - mean);
  double sd = std::sqrt(var / static_cast<double>(values.size()));
  EXPECT_NEAR(s.mean, mean, mean * 1e-9);
  EXPECT_NEAR(s.stdev, sd, sd * 0.02);
}

TEST(LatencyHistogram, UniformDistribution) {
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<int64_t> d(1'000, 1'000'000);
  std::vector<int64_t> v(500'000);
  for (auto& x : v) x = d(rng);
  check_against(v);
}

TEST(LatencyHistogram, LogNormalWithLongTail) {
  // Typical of FFI round trips: most around 2 us, a tail to milliseconds.
  std::mt19937_64 rng(2);
  std::lognormal_distribution<double> d(std::log(2000.0), 0.8);
  std::vector<int64_t> v(500'000);
  for (auto& x : v) x = static_cast<int64_t>(d(rng));
  check_against(v);
}

TEST(LatencyHistogram, SmallValuesAreExact) {
  LatencyHistogram h;
  for (int i = 1; i <= 100; ++i) h.record(i);
  EXPECT_EQ(h.percentile(50), 50);
  EXPECT_EQ(h.percentile(99), 99);
  EXPECT_EQ(h.percentile(100), 100);
}

TEST(LatencyHistogram, BucketsTileTheRange) {
  for (int b = 0; b + 1 < LatencyHistogram::kBuckets; ++b) {
    ASSERT_EQ(LatencyHistogram::bucket_high(b) + 1, LatencyHistogram::bucket_low(b + 1)) << b;
    ASSERT_EQ(LatencyHistogram::bucket_of(LatencyHistogram::bucket_low(b)), b);
    ASSERT_EQ(LatencyHistogram::bucket_of(LatencyHistogram::bucket_high(b)), b);
  }
}

TEST(LatencyHistogram, HugeValuesClampButMaxIsExact) {
  LatencyHistogram h;
  h.record(INT64_MAX / 2);
  h.record(5);
  EXPECT_EQ(h.summary().max, INT64_MAX / 2);
  EXPECT_EQ(h.percentile(100), INT64_MAX / 2);
}

TEST(LatencyHistogram, EmptyIsZero) {
  LatencyHistogram h;
  auto s = h.summary();
  EXPECT_EQ(s.count, 0);
  EXPECT_TRUE(s.bins.empty());
  EXPECT_EQ(h.percentile(50), 0);
}

// The bins the JSON report draws: every value counted once, in the bin whose
// range holds it, ascending and disjoint, the outer edges at min and max.
TEST(LatencyHistogram, BinsHoldEveryValueInItsRange) {
  const std::vector<int64_t> values = {3, 17, 17, 130, 500, 501, 4096, 4100, 70000, 1000000, INT64_MAX / 2};
  LatencyHistogram h;
  for (int64_t v : values) h.record(v);
  auto s = h.summary();
  ASSERT_FALSE(s.bins.empty());
  uint64_t total = 0;
  for (size_t i = 0; i < s.bins.size(); ++i) {
    const auto& b = s.bins[i];
    EXPECT_GT(b.count, 0u);
    EXPECT_LE(b.low, b.high);
    if (i > 0) {
      EXPECT_GT(b.low, s.bins[i - 1].high);
    }
    uint64_t inside = 0;
    for (int64_t v : values) inside += (v >= b.low && v <= b.high) ? 1 : 0;
    EXPECT_EQ(b.count, inside) << "bin " << b.low << ".." << b.high;
    total += b.count;
  }
  EXPECT_EQ(total, values.size());
  EXPECT_EQ(s.bins.front().low, 3);
  EXPECT_EQ(s.bins.back().high, INT64_MAX / 2);
  // Shared bins: 17 twice; 500 and 501 (32 ns wide bins in 256..511); 4096 and
  // 4100 (512 ns wide in 4096..8191).  3 and 17 do not share (16 ns wide below 128).
  EXPECT_EQ(s.bins.size(), values.size() - 3);
}

TEST(LatencyHistogram, ConcurrentRecordingLosesNothing) {
  LatencyHistogram h;
  constexpr int kThreads = 8, kEach = 200'000;
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&h, t] {
      for (int i = 0; i < kEach; ++i) h.record(1000 + (i % 1000) + t);
    });
  for (auto& t : ts) t.join();
  auto s = h.summary();
  EXPECT_EQ(s.count, int64_t{kThreads} * kEach);
  EXPECT_EQ(s.min, 1000);
  EXPECT_EQ(s.max, 1999 + kThreads - 1);
  EXPECT_NEAR(static_cast<double>(s.p50), 1500, 1500 * 0.02);
}

TEST(LatencyHistogram, BatchEqualsOneByOne) {
  // Same buckets, count, sum, min and max as recording each value alone.
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> d(9.0, 0.8);
  std::vector<int64_t> v(50'000);
  for (auto& x : v) x = static_cast<int64_t>(d(rng));
  LatencyHistogram one, batch;
  for (int64_t x : v) one.record(x);
  for (size_t i = 0; i < v.size(); i += 4096) batch.record_batch(v.data() + i, std::min<size_t>(4096, v.size() - i));
  batch.record_batch(nullptr, 0);  // an empty batch changes nothing
  auto a = one.summary(), b = batch.summary();
  EXPECT_EQ(a.count, b.count);
  EXPECT_EQ(a.min, b.min);
  EXPECT_EQ(a.max, b.max);
  EXPECT_DOUBLE_EQ(a.mean, b.mean);
  EXPECT_DOUBLE_EQ(a.stdev, b.stdev);
  EXPECT_EQ(a.p50, b.p50);
  EXPECT_EQ(a.p97_5, b.p97_5);
  EXPECT_EQ(a.p99, b.p99);
}

TEST(LatencyHistogram, ConcurrentBatchesLoseNothing) {
  LatencyHistogram h;
  constexpr int kThreads = 4, kBatches = 200, kBatch = 1024;
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&h, t] {
      std::vector<int64_t> b(kBatch);
      for (int i = 0; i < kBatches; ++i) {
        for (int j = 0; j < kBatch; ++j) b[j] = 500 + j + t;
        h.record_batch(b.data(), b.size());
      }
    });
  for (auto& t : ts) t.join();
  auto s = h.summary();
  EXPECT_EQ(s.count, int64_t{kThreads} * kBatches * kBatch);
  EXPECT_EQ(s.min, 500);
  EXPECT_EQ(s.max, 500 + kBatch - 1 + kThreads - 1);
}

}  // namespace
