#include "borderline.hpp"

#include <cstdio>
#include <vector>

namespace dalmon {

namespace {

// Margins.  A factor of two either way of a threshold, two standard errors
// for the slope (about 95 %), and a last window whose floor rose by less
// than a quarter of what the run's steady growth would give it.
constexpr double kFactor = 2.0;
constexpr double kStderrs = 2.0;
constexpr double kSlowdown = 0.25;

std::string figure(const char* format, double a, double b, const char* unit) {
  char buf[160];
  std::snprintf(buf, sizeof buf, format, a, unit, b, unit);
  return buf;
}

}  // namespace

Borderline classify_borderline(const LayerVerdict& v, const SeriesSummary& s, std::string_view per_unit) {
  Borderline out;
  if (v.status != VerdictStatus::Leak && v.status != VerdictStatus::NoLeak) return out;
  const bool bytes = metric_info(layer_info(v.layer).metric).unit == Unit::Bytes;
  const char* unit = bytes ? " B" : "";
  const std::string per(per_unit);
  const std::string slope_unit = std::string(unit) + "/" + per;
  const double L = v.threshold.slope_limit, G = v.threshold.min_growth;
  const double slope = s.slope_per_query, se = v.slope_stderr, growth = s.growth_after_warmup;
  const double eps = v.step_eps;
  const int steps = static_cast<int>(v.block_minima.size()) - 1;
  std::vector<std::string> close;

  if (v.status == VerdictStatus::Leak) {
    // Any condition that holds only narrowly could fail on a longer run.
    if (slope < kFactor * L || slope - kStderrs * se <= L) {
      close.push_back(
          figure("slope %.4g%s (within 2x or 2 standard errors of its limit %.4g%s)", slope, L, slope_unit.c_str()));
    }
    if (growth < kFactor * G) close.push_back(figure("growth %.0f%s under twice its minimum %.0f%s", growth, G, unit));
    if (v.last_step_rise < kFactor * eps) {
      close.push_back(figure("the last window rose %.0f%s, under twice the step %.0f%s", v.last_step_rise, eps, unit));
    }
    // Steady growth lifts the floor of each half of the last window by half
    // a block step; a rise that is ending (a warm-up that lasted into the
    // last window) lifts it far less.
    const double steady_half = steps > 0 ? v.floor_rise / (2.0 * steps) : 0;
    if (steps > 0 && v.last_block_half_rise < kSlowdown * steady_half) {
      close.push_back(
          figure("growth slowed in the last window (its second half's floor rose %.0f%s; steady growth "
                 "gives %.0f%s)",
                 v.last_block_half_rise, steady_half, unit));
    }
  } else {
    // No leak: borderline only if every failed condition missed narrowly,
    // so that a little more of the same growth would make it a leak.
    bool all_close = true;
    if (!v.slope_over) {
      const bool near = (L > 0 && slope >= L / kFactor) || slope + kStderrs * se > L;
      all_close = all_close && near;
      if (near) close.push_back(figure("slope %.4g%s near its limit %.4g%s", slope, L, slope_unit.c_str()));
    }
    if (!v.growth_over) {
      const bool near = growth >= G / kFactor;
      all_close = all_close && near;
      if (near) close.push_back(figure("growth %.0f%s near its minimum %.0f%s", growth, G, unit));
    }
    if (!v.persistent) {
      // Growing in the last window and at most one rising step short: a
      // leak that started late, or a step where the last block starts.
      const bool near = v.last_step_rise > eps / kFactor && v.rising_steps + 1 >= v.needed_steps;
      all_close = all_close && near;
      if (near) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "minima rose in %d of %d blocks (need %d), rising in the last", v.rising_steps,
                      steps, v.needed_steps);
        close.push_back(buf);
      }
    }
    if (!all_close) close.clear();
  }
  if (close.empty()) return out;
  out.borderline = true;
  for (const std::string& c : close) out.reason += (out.reason.empty() ? "" : "; ") + c;
  return out;
}

}  // namespace dalmon
