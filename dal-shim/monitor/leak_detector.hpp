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
