#include "latency_histogram.hpp"

#include <algorithm>
#include <cmath>

namespace dalmon {

namespace {
std::atomic<unsigned> g_next_shard{0};

// A thread keeps its shard for life: cheap (one TLS read), and a thread never
// contends with itself.
unsigned my_shard() noexcept {
  thread_local unsigned shard =
      g_next_shard.fetch_add(1, std::memory_order_relaxed) % static_cast<unsigned>(LatencyHistogram::kShards);
  return shard;
}

void atomic_min(std::atomic<int64_t>& a, int64_t v) noexcept {
  int64_t cur = a.load(std::memory_order_relaxed);
  while (v < cur && !a.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {}
}
void atomic_max(std::atomic<int64_t>& a, int64_t v) noexcept {
  int64_t cur = a.load(std::memory_order_relaxed);
  while (v > cur && !a.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {}
}
}  // namespace

LatencyHistogram::LatencyHistogram() : shards_(new Shard[kShards]) {
  for (int s = 0; s < kShards; ++s)
    for (auto& b : shards_[s].buckets) b.store(0, std::memory_order_relaxed);
}

int LatencyHistogram::bucket_of(int64_t v) noexcept {
  if (v < kSub) return static_cast<int>(v < 0 ? 0 : v);              // exact below 128 ns
  int e = 63 - __builtin_clzll(static_cast<unsigned long long>(v));  // floor(log2 v) >= kSubBits
  if (e >= kMaxExp) return kBuckets - 1;                             // clamp; max stays exact
  int shift = e - kSubBits;
  int mant = static_cast<int>(v >> shift) - kSub;  // 0..127
  return kSub + shift * kSub + mant;
}

int64_t LatencyHistogram::bucket_low(int b) noexcept {
  if (b < kSub) return b;
  int shift = (b - kSub) / kSub;
  int mant = (b - kSub) % kSub + kSub;
  return static_cast<int64_t>(mant) << shift;
}

int64_t LatencyHistogram::bucket_high(int b) noexcept {
  if (b < kSub) return b;
  int shift = (b - kSub) / kSub;
  return bucket_low(b) + (int64_t{1} << shift) - 1;
}

void LatencyHistogram::record(int64_t ns) noexcept {
  if (ns < 0) ns = 0;
  Shard& s = shards_[my_shard()];
  s.buckets[bucket_of(ns)].fetch_add(1, std::memory_order_relaxed);
  s.sum.fetch_add(static_cast<uint64_t>(ns), std::memory_order_relaxed);
  atomic_min(s.min, ns);
  atomic_max(s.max, ns);
}

void LatencyHistogram::record_batch(const int64_t* ns, size_t count) noexcept {
  if (count == 0) return;
  Shard& s = shards_[my_shard()];
  uint64_t sum = 0;
  int64_t mn = INT64_MAX, mx = -1;
  for (size_t i = 0; i < count; ++i) {
    const int64_t v = ns[i] < 0 ? 0 : ns[i];
    s.buckets[bucket_of(v)].fetch_add(1, std::memory_order_relaxed);
    sum += static_cast<uint64_t>(v);
    mn = std::min(mn, v);
    mx = std::max(mx, v);
  }
  s.sum.fetch_add(sum, std::memory_order_relaxed);
  atomic_min(s.min, mn);
  atomic_max(s.max, mx);
}

void LatencyHistogram::merge(std::array<uint64_t, kBuckets>& out, uint64_t& count, uint64_t& sum, int64_t& mn,
                             int64_t& mx) const noexcept {
  out.fill(0);
  count = 0;
  sum = 0;
  mn = INT64_MAX;
  mx = -1;
  for (int s = 0; s < kShards; ++s) {
    const Shard& sh = shards_[s];
    for (int b = 0; b < kBuckets; ++b) out[b] += sh.buckets[b].load(std::memory_order_relaxed);
    sum += sh.sum.load(std::memory_order_relaxed);
    mn = std::min(mn, sh.min.load(std::memory_order_relaxed));
    mx = std::max(mx, sh.max.load(std::memory_order_relaxed));
  }
  // Count from the buckets themselves so percentiles are consistent with the
  // snapshot even while other threads are still recording.
  for (uint64_t c : out) count += c;
}

int64_t LatencyHistogram::percentile_of(const std::array<uint64_t, kBuckets>& b, uint64_t count, double p, int64_t mn,
                                        int64_t mx) noexcept {
  if (count == 0) return 0;
  p = std::clamp(p, 0.0, 100.0);
  // Nearest-rank definition: the smallest value with at least ceil(p% * n)
  // values at or below it.
  uint64_t rank = static_cast<uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count)));
  if (rank < 1) rank = 1;
  if (rank >= count) return mx;  // p100 is the exact maximum, not a bucket midpoint
  uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += b[i];
    if (seen >= rank) {
      if (i == kBuckets - 1) return mx;  // the overflow bucket has no meaningful midpoint
      int64_t mid = bucket_low(i) + (bucket_high(i) - bucket_low(i)) / 2;
      return std::clamp(mid, mn, mx);
    }
  }
  return mx;
}

int64_t LatencyHistogram::percentile(double p) const noexcept {
  std::array<uint64_t, kBuckets> b;
  uint64_t count, sum;
  int64_t mn, mx;
  merge(b, count, sum, mn, mx);
  return percentile_of(b, count, p, mn, mx);
}

LatencySummary LatencyHistogram::summary() const {
  LatencySummary r;
  std::array<uint64_t, kBuckets> b;
  uint64_t count, sum;
  int64_t mn, mx;
  merge(b, count, sum, mn, mx);
  if (count == 0) return r;
  r.count = static_cast<int64_t>(count);
  r.min = mn;
  r.max = mx;
  r.mean = static_cast<double>(sum) / static_cast<double>(count);
  double m2 = 0;
  for (int i = 0; i < kBuckets; ++i) {
    if (!b[i]) continue;
    double mid = std::clamp<double>(bucket_low(i) + (bucket_high(i) - bucket_low(i)) / 2.0, static_cast<double>(mn),
                                    static_cast<double>(mx));
    double d = mid - r.mean;
    m2 += d * d * static_cast<double>(b[i]);
  }
  r.stdev = std::sqrt(m2 / static_cast<double>(count));
  r.p50 = percentile_of(b, count, 50, mn, mx);
  r.p97_5 = percentile_of(b, count, 97.5, mn, mx);
  r.p99 = percentile_of(b, count, 99, mn, mx);
  // kBinBuckets divides kSub, so a bin never straddles two powers of two.
  for (int first = 0; first < kBuckets; first += kBinBuckets) {
    LatencyBin bin;
    for (int i = first; i < first + kBinBuckets; ++i) bin.count += b[i];
    if (!bin.count) continue;
    bin.low = std::max(bucket_low(first), mn);
    // The last bucket also holds everything past 2^48 ns: its bin ends at the maximum.
    bin.high = first + kBinBuckets == kBuckets ? mx : std::min(bucket_high(first + kBinBuckets - 1), mx);
    r.bins.push_back(bin);
  }
  return r;
}

}  // namespace dalmon
