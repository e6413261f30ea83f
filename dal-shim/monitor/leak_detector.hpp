// leak_detector.hpp -- the one leak rule (docs/leak-verdict.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "metric_series.hpp"
#include "metrics.hpp"
#include "run_params.hpp"

namespace dalmon {

enum class VerdictStatus { NotAvailable, NoLeak, Leak, Insufficient };

const char* verdict_name(VerdictStatus s) noexcept;  // "n/a", "no leak", "leak", "insufficient"

// The verdict on one layer.  Its figures (start, end, growth, slope) are not
// copied here: they are the layer metric's SeriesSummary in the RunResult.
struct LayerVerdict {
  Layer layer = Layer::Rss;
  VerdictStatus status = VerdictStatus::NotAvailable;
  bool partial = false;  // judged on an interrupted or incomplete run
  LayerThreshold threshold;
  std::vector<double> block_minima;  // minimum of each post-warm-up block
  int rising_steps = 0;              // block-to-block minima rises larger than the noise step
  int needed_steps = 0;              // rises required for "persistent"
  bool still_rising = false;         // the last block's minimum rose over the one before
  bool slope_over = false, growth_over = false, persistent = false;
  std::string reason;  // one line, human readable

  // What the borderline classification reads (borderline.hpp), besides the
  // summary's slope and growth.
  double slope_stderr = 0;          // standard error of the post-warm-up slope
  double step_eps = 0;              // a block-to-block rise counts above this (min_growth/8)
  double last_step_rise = 0;        // last block's minimum minus the one before
  double floor_rise = 0;            // last block's minimum minus the first's
  double last_block_half_rise = 0;  // in the last block: its second half's minimum minus its first half's
  // Close to a threshold, so that a longer run could give the other verdict
  // (docs/leak-verdict.md, "Borderline verdicts"); --confirm repeats such a run.
  bool borderline = false;
  std::string borderline_reason;  // "" unless borderline
};

class LeakDetector {
 public:
  // Blocks the post-warm-up samples are split into (at most; fewer if there
  // are fewer than 2 samples per block).
  static constexpr int kMaxBlocks = 4;

  // Judge one layer on its metric's series and that series' summary (the
  // summary says where warm-up ends and carries slope and growth; it must be
  // series.summarize(boundary), computed once by the caller).
  // per: the x axis' unit in the reason ("slope 16 B/query"), "query" or
  // "iteration" (RunParams::unit).
  static LayerVerdict judge(Layer layer, const MetricSeries& series, const SeriesSummary& summary,
                            const LayerThreshold& threshold, int min_samples, std::string_view per = "query");
};

}  // namespace dalmon
