// metric_series.hpp -- one metric over a run, and its summary numbers.
//
// Kept apart from the Monitor so that synthetic series (unit tests) and real
// runs go through exactly the same arithmetic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dalmon {

struct SeriesPoint {
  double queries;  // x: queries completed at the sample
  double value;    // y: bytes or count
};

// The one summary of a metric over a run.  The Monitor computes it once per
// metric at finish; the leak rule, the text report and the JSON report all
// read this same object, so they cannot disagree.
struct SeriesSummary {
  bool available = false;  // at least one sample had the metric
  double start = 0, average = 0, peak = 0, end = 0;
  // The post-warm-up part: the points from the first one at or after the
  // warm-up boundary to the last one.  Empty (0 samples) when the run ended
  // inside warm-up; the figures below are then 0 and not reported.
  int post_warmup_samples = 0;
  size_t first_post_warmup = 0;    // index into MetricSeries::points()
  double warmup_queries = 0;       // x of the first post-warm-up point
  double warmup_value = 0;         // its value
  double growth_after_warmup = 0;  // end - warmup_value
  double slope_per_query = 0;      // least squares over the post-warm-up points
};

class MetricSeries {
 public:
  // Unavailable values (< 0) are skipped here, so a source that failed once
  // leaves a gap rather than a fake drop to zero.
  void add(double queries, int64_t value) {
    if (value >= 0) points_.push_back({queries, static_cast<double>(value)});
  }
  void add(double queries, double value) {
    if (value >= 0) points_.push_back({queries, value});
  }

  const std::vector<SeriesPoint>& points() const noexcept { return points_; }

  // Index of the first point whose x >= boundary (the end of warm-up), or
  // points().size() if none.
  size_t warmup_index(double boundary_queries) const noexcept;

  SeriesSummary summarize(double boundary_queries) const noexcept;

  // Ordinary least squares slope of value on queries over points[from..).
  // Returns 0 when x does not vary (no information about a trend).
  double slope_from(size_t from) const noexcept;

  // Standard error of that slope (residual spread over the spread of x):
  // how far the slope could move on this series' own scatter.  0 with fewer
  // than three points or when x does not vary.
  double slope_stderr_from(size_t from) const noexcept;

 private:
  std::vector<SeriesPoint> points_;
};

}  // namespace dalmon
