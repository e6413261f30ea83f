#include "metric_series.hpp"

#include <algorithm>
#include <cmath>

namespace dalmon {

size_t MetricSeries::warmup_index(double boundary) const noexcept {
  for (size_t i = 0; i < points_.size(); ++i)
    if (points_[i].queries >= boundary) return i;
  return points_.size();
}

namespace {

// The least-squares line through points[from..): its slope, the centre it
// turns about and the spread of x.  Centred first: x reaches 1e8 and y 1e9,
// so the textbook n*sum(xy) - sum(x)sum(y) form would lose most digits to
// cancellation.
struct LineFit {
  double mean_x = 0, mean_y = 0, sxx = 0, slope = 0;
};

LineFit fit_line(const std::vector<SeriesPoint>& points, size_t from) noexcept {
  LineFit f;
  const size_t n = points.size() - from;
  for (size_t i = from; i < points.size(); ++i) {
    f.mean_x += points[i].queries;
    f.mean_y += points[i].value;
  }
  f.mean_x /= static_cast<double>(n);
  f.mean_y /= static_cast<double>(n);
  double sxy = 0;
  for (size_t i = from; i < points.size(); ++i) {
    const double dx = points[i].queries - f.mean_x;
    f.sxx += dx * dx;
    sxy += dx * (points[i].value - f.mean_y);
  }
  f.slope = f.sxx > 0 ? sxy / f.sxx : 0;
  return f;
}

}  // namespace

double MetricSeries::slope_from(size_t from) const noexcept {
  const size_t n = points_.size() > from ? points_.size() - from : 0;
  if (n < 2) return 0;
  return fit_line(points_, from).slope;
}

double MetricSeries::slope_stderr_from(size_t from) const noexcept {
  const size_t n = points_.size() > from ? points_.size() - from : 0;
  if (n < 3) return 0;
  const LineFit f = fit_line(points_, from);
  if (f.sxx <= 0) return 0;
  double ssr = 0;
  for (size_t i = from; i < points_.size(); ++i) {
    const double r = points_[i].value - f.mean_y - f.slope * (points_[i].queries - f.mean_x);
    ssr += r * r;
  }
  return std::sqrt(ssr / static_cast<double>(n - 2) / f.sxx);
}

SeriesSummary MetricSeries::summarize(double boundary) const noexcept {
  SeriesSummary s;
  if (points_.empty()) return s;
  s.available = true;
  s.start = points_.front().value;
  s.end = points_.back().value;
  double sum = 0;
  s.peak = points_.front().value;
  for (const auto& p : points_) {
    sum += p.value;
    s.peak = std::max(s.peak, p.value);
  }
  s.average = sum / static_cast<double>(points_.size());
  size_t w = warmup_index(boundary);
  if (w >= points_.size()) return s;  // ended inside warm-up: no post-warm-up figures
  s.first_post_warmup = w;
  s.post_warmup_samples = static_cast<int>(points_.size() - w);
  s.warmup_value = points_[w].value;
  s.warmup_queries = points_[w].queries;
  s.growth_after_warmup = s.end - s.warmup_value;
  s.slope_per_query = slope_from(w);
  return s;
}

}  // namespace dalmon
