#include "metric_series.hpp"

#include <algorithm>
#include <cmath>

namespace dalmon {

size_t MetricSeries::warmup_index(double boundary) const noexcept {
  for (size_t i = 0; i < points_.size(); ++i)
    if (points_[i].queries >= boundary) return i;
  return points_.size();
}

double MetricSeries::slope_from(size_t from) const noexcept {
  size_t n = points_.size() > from ? points_.size() - from : 0;
  if (n < 2) return 0;
  // Centre first: x reaches 1e8 and y 1e9, so the textbook
  // n*sum(xy) - sum(x)sum(y) form would lose most digits to cancellation.
  double mx = 0, my = 0;
  for (size_t i = from; i < points_.size(); ++i) {
    mx += points_[i].queries;
    my += points_[i].value;
  }
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  double sxx = 0, sxy = 0;
  for (size_t i = from; i < points_.size(); ++i) {
    double dx = points_[i].queries - mx;
    sxx += dx * dx;
    sxy += dx * (points_[i].value - my);
  }
  return sxx > 0 ? sxy / sxx : 0;
}

double MetricSeries::slope_stderr_from(size_t from) const noexcept {
  size_t n = points_.size() > from ? points_.size() - from : 0;
  if (n < 3) return 0;
  double mx = 0, my = 0;
  for (size_t i = from; i < points_.size(); ++i) {
    mx += points_[i].queries;
    my += points_[i].value;
  }
  mx /= static_cast<double>(n);
  my /= static_cast<double>(n);
  const double b = slope_from(from);
  double sxx = 0, ssr = 0;
  for (size_t i = from; i < points_.size(); ++i) {
    const double dx = points_[i].queries - mx;
    const double r = points_[i].value - my - b * dx;
    sxx += dx * dx;
    ssr += r * r;
  }
  return sxx > 0 ? std::sqrt(ssr / static_cast<double>(n - 2) / sxx) : 0;
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
