// latency_histogram.hpp -- lock-free log-linear latency histogram (HDR style).
//
// Why a histogram and not a reservoir: 100M latencies cannot be kept, and a
// reservoir loses the tail (p99 of 100M from 10k samples is noisy).  A
// log-linear histogram with 128 sub-buckets per power of two bounds the
// relative error of every percentile by 1/256 (bucket midpoint), far inside
// the 2 % the kit promises, in 5,504 counters.
//
// Why shards: recording is one relaxed atomic add, but many threads adding to
// the same cache lines would bounce them between cores.  Each thread picks
// one of kShards shards (round-robin on first use) so that in the common case
// (threads <= shards) no two threads touch the same counters.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace dalmon {

// A run of adjacent buckets, for drawing the distribution (the JSON report's
// latency_histogram): values low..high ns (inclusive) and how many fell there.
struct LatencyBin {
  int64_t low = 0, high = 0;
  uint64_t count = 0;
};

struct LatencySummary {
  int64_t count = 0;
  int64_t min = 0, max = 0;             // exact
  double mean = 0;                      // exact (sum / count)
  double stdev = 0;                     // from bucket midpoints (population stdev)
  int64_t p50 = 0, p97_5 = 0, p99 = 0;  // bucket midpoints clamped to [min, max]
  // The non-empty bins of kBinBuckets buckets each, ascending: 8 per power of
  // two above 128 ns, 16 ns wide below.  Enough to draw the shape; 5,504
  // buckets would be a 100 KB report for the same picture.
  std::vector<LatencyBin> bins;
};

class LatencyHistogram {
 public:
  static constexpr int kSubBits = 7;  // 128 sub-buckets per octave
  static constexpr int kSub = 1 << kSubBits;
  static constexpr int kMaxExp = 48;  // values up to 2^48 ns (~78 h) are resolved
  static constexpr int kBuckets = kSub + (kMaxExp - kSubBits) * kSub;
  static constexpr int kShards = 8;
  static constexpr int kBinBuckets = 16;  // buckets per LatencySummary::bins entry (divides kSub)

  LatencyHistogram();

  // Thread-safe, wait-free.  Negative values are rejected by the caller (C ABI).
  void record(int64_t ns) noexcept;
  // The same for ns[0..count): one add per value on its bucket, and the sum,
  // min and max of the batch folded in once (a driver hands over thousands
  // of latencies per call).
  void record_batch(const int64_t* ns, size_t count) noexcept;

  // Percentile p in [0, 100] of everything recorded so far.
  int64_t percentile(double p) const noexcept;
  LatencySummary summary() const;  // allocates the bins

  static int bucket_of(int64_t v) noexcept;
  static int64_t bucket_low(int b) noexcept;   // smallest value in bucket b
  static int64_t bucket_high(int b) noexcept;  // largest value in bucket b

 private:
  struct Shard {
    std::array<std::atomic<uint64_t>, kBuckets> buckets;
    // No count: merge() counts the buckets, so recording pays no extra add.
    alignas(64) std::atomic<uint64_t> sum{0};  // ns; 2^64 ns is 584 years of summed latency
    std::atomic<int64_t> min{INT64_MAX};
    std::atomic<int64_t> max{-1};
  };
  std::unique_ptr<Shard[]> shards_;

  // Merged bucket counts (a snapshot; concurrent records may or may not be in it).
  void merge(std::array<uint64_t, kBuckets>& out, uint64_t& count, uint64_t& sum, int64_t& mn,
             int64_t& mx) const noexcept;
  static int64_t percentile_of(const std::array<uint64_t, kBuckets>& b, uint64_t count, double p, int64_t mn,
                               int64_t mx) noexcept;
};

}  // namespace dalmon
