// synthetic.hpp -- series with known answers for the leak-rule tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>

#include "leak_detector.hpp"
#include "metric_series.hpp"
#include "run_params.hpp"

namespace synth {

constexpr double kQueries = 1'000'000;  // the size the brief demands a 16 B/query leak be caught at
constexpr double kEvery = 10'000;       // 101 samples
constexpr double kWarmup = 0.2 * kQueries;
constexpr double kMiB = 1024.0 * 1024.0;

// Deterministic noise in [-1, 1] (no <random> so runs are identical everywhere).
struct Lcg {
  uint64_t s = 0x9E3779B97F4A7C15ull;
  double next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(s >> 11) / static_cast<double>(1ull << 53) * 2.0 - 1.0;
  }
};

inline dalmon::MetricSeries make(const std::function<double(double)>& f) {
  dalmon::MetricSeries s;
  for (double q = 0; q <= kQueries; q += kEvery) s.add(q, std::max(0.0, f(q)));
  return s;
}

// A run of `total` queries sampled every total/100 (the drivers' default),
// for the tests that compare a run with its repetition at twice the length.
inline dalmon::MetricSeries make_run(double total, const std::function<double(double)>& f) {
  dalmon::MetricSeries s;
  for (int i = 0; i <= 100; ++i) {
    const double q = total * i / 100;
    s.add(q, std::max(0.0, f(q)));
  }
  return s;
}

// Judge with the default thresholds, warm-up ending at `boundary`; the
// summary is computed once and handed to the rule, as the Monitor does.
inline dalmon::LayerVerdict judge(dalmon::Layer layer, const dalmon::MetricSeries& s, double boundary = kWarmup) {
  const auto& t = dalmon::default_thresholds()[static_cast<int>(layer)];
  return dalmon::LeakDetector::judge(layer, s, s.summarize(boundary), t, 6);
}

inline bool is_count_layer(dalmon::Layer l) {
  return dalmon::metric_info(dalmon::layer_info(l).metric).unit == dalmon::Unit::Count;
}

// A baseline and a "noise" amplitude that make sense for the layer: tens of MB
// for byte layers, a handful of objects for counts.
inline double base_of(dalmon::Layer l) { return is_count_layer(l) ? 4 : 64 * kMiB; }

}  // namespace synth
