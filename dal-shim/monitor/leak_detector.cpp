#include "leak_detector.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "borderline.hpp"

namespace dalmon {

const char* verdict_name(VerdictStatus s) noexcept {
  switch (s) {
    case VerdictStatus::NotAvailable: return "n/a";
    case VerdictStatus::NoLeak: return "no leak";
    case VerdictStatus::Leak: return "leak";
    case VerdictStatus::Insufficient: return "insufficient";
  }
  return "?";
}

LayerVerdict LeakDetector::judge(Layer layer, const MetricSeries& series, const SeriesSummary& sum,
                                 const LayerThreshold& t, int min_samples, std::string_view per) {
  LayerVerdict v;
  v.layer = layer;
  v.threshold = t;
  if (!sum.available) {
    v.status = VerdictStatus::NotAvailable;
    v.reason = "metric not available";
    return v;
  }
  const auto& pts = series.points();
  const size_t w = sum.first_post_warmup;
  const size_t n = static_cast<size_t>(sum.post_warmup_samples);
  // At least two points, whatever the caller asks: blocks need a minimum each.
  if (static_cast<int>(n) < std::max(min_samples, 2)) {
    v.status = VerdictStatus::Insufficient;
    v.reason = std::to_string(n) + " samples after warm-up, need " + std::to_string(min_samples);
    return v;
  }

  // Persistence: split post-warm-up samples into blocks and compare block
  // MINIMA.  Minima, because garbage-collected and cached memory rises and
  // drops (sawtooth) and its peaks say only how late the collector ran; the
  // floor it returns to is what is really retained.
  int blocks = static_cast<int>(std::min<size_t>(kMaxBlocks, n / 2));
  auto minimum = [&](size_t lo, size_t hi) {
    double m = pts[lo].value;
    for (size_t i = lo; i < hi; ++i) m = std::min(m, pts[i].value);
    return m;
  };
  for (int b = 0; b < blocks; ++b) v.block_minima.push_back(minimum(w + n * b / blocks, w + n * (b + 1) / blocks));
  // A rise must beat an eighth of the growth threshold, so that jitter of a
  // few pages or a few KiB does not count as "rising".
  const double step_eps = t.min_growth / 8.0;
  for (int b = 1; b < blocks; ++b)
    if (v.block_minima[b] > v.block_minima[b - 1] + step_eps) ++v.rising_steps;
  // "Most" blocks, as in the `leakage` tool's 2/3 rule: with 4 blocks 2 of 3
  // rises, with 3 blocks both.  A single step (plateau) gives exactly one.
  v.needed_steps = static_cast<int>(std::ceil(2.0 * (blocks - 1) / 3.0));
  const double floor_rise = v.block_minima.back() - v.block_minima.front();

  v.slope_over = sum.slope_per_query > t.slope_limit;
  v.growth_over = sum.growth_after_warmup >= t.min_growth;
  // Growth must still be going on at the end: the last block's floor rises
  // over the one before.  Memory that climbs through the first windows after
  // warm-up and then stays (a real image library's surfaces waiting for GC,
  // pages its allocator keeps) rises in "most" steps but not in the last
  // one; a leak, whenever it started, rises in every step after its start.
  v.still_rising = blocks >= 2 && v.block_minima[blocks - 1] > v.block_minima[blocks - 2] + step_eps;
  v.persistent = v.rising_steps >= v.needed_steps && v.still_rising && floor_rise >= t.min_growth / 2.0;
  v.status = (v.slope_over && v.growth_over && v.persistent) ? VerdictStatus::Leak : VerdictStatus::NoLeak;

  v.slope_stderr = series.slope_stderr_from(w);
  v.step_eps = step_eps;
  v.floor_rise = floor_rise;
  v.last_step_rise = blocks >= 2 ? v.block_minima[blocks - 1] - v.block_minima[blocks - 2] : 0;
  const size_t last_lo = w + n * (blocks - 1) / blocks, last_mid = (last_lo + w + n + 1) / 2;
  v.last_block_half_rise = minimum(last_mid, w + n) - minimum(last_lo, last_mid);

  const char* unit = metric_info(layer_info(layer).metric).unit == Unit::Bytes ? " B" : "";
  const std::string each(per);
  char buf[320];
  std::snprintf(
      buf, sizeof buf,
      "slope %.4g%s/%s %s limit %.4g%s/%s; growth %.0f%s %s %.0f%s; minima rose in %d of %d blocks (need %d), "
      "%s in the last",
      sum.slope_per_query, unit, each.c_str(), v.slope_over ? ">" : "<=", t.slope_limit, unit, each.c_str(),
      sum.growth_after_warmup, unit, v.growth_over ? ">=" : "<", t.min_growth, unit, v.rising_steps, blocks - 1,
      v.needed_steps, v.still_rising ? "rising" : "not rising");
  v.reason = buf;
  const Borderline b = classify_borderline(v, sum, per);
  v.borderline = b.borderline;
  v.borderline_reason = b.reason;
  return v;
}

}  // namespace dalmon
