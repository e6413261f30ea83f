// Borderline verdicts (docs/leak-verdict.md, "Borderline verdicts"): which
// series a longer run could turn over, and that the run --confirm makes
// (twice the queries) settles them.  Synthetic series with known answers.
#include <gtest/gtest.h>

#include "synthetic.hpp"

using dalmon::Layer;
using dalmon::VerdictStatus;
using namespace synth;

namespace {

// Judged as a run of `total` queries with the default 20 % warm-up.
dalmon::LayerVerdict judge_run(Layer layer, double total, const std::function<double(double)>& f) {
  return judge(layer, make_run(total, f), 0.2 * total);
}

const double kBase = 64 * kMiB;
const double kRun = kQueries;        // the first run
const double kTwice = 2 * kQueries;  // the run --confirm makes

TEST(Borderline, ClearLeakIsNotBorderline) {
  // The required catch: 16 B/query over 1M queries, 3x over every minimum.
  for (Layer l : {Layer::Rss, Layer::Malloc, Layer::JsHeap, Layer::GoHeap}) {
    auto v = judge_run(l, kRun, [](double q) { return std::floor(kBase + 16 * q); });
    EXPECT_EQ(v.status, VerdictStatus::Leak) << v.reason;
    EXPECT_FALSE(v.borderline) << dalmon::layer_info(l).name << ": " << v.borderline_reason;
  }
}

TEST(Borderline, FlatAndPlateausAreNotBorderline) {
  // Flat; the foreign library's 100 MB rise through the first windows; a
  // single step in the middle: clearly no leak, nothing to confirm.
  auto flat = judge_run(Layer::Rss, kRun, [](double) { return kBase; });
  auto rise =
      judge_run(Layer::Rss, kRun, [](double q) { return kBase + 100 * kMiB * std::min(q, 600'000.0) / 600'000; });
  auto step = judge_run(Layer::Rss, kRun, [](double q) { return kBase + (q >= 500'000 ? 32 * kMiB : 0); });
  for (const auto* v : {&flat, &rise, &step}) {
    EXPECT_EQ(v->status, VerdictStatus::NoLeak) << v->reason;
    EXPECT_FALSE(v->borderline) << v->borderline_reason;
  }
}

TEST(Borderline, LeakJustOverTheGrowthMinimumIsBorderline) {
  // rss: 6 B/query, 3x its slope limit, but 4.8 MB of growth after warm-up
  // against a minimum of 4 MiB: a leak, within 2x of one threshold.
  auto v = judge_run(Layer::Rss, kRun, [](double q) { return std::floor(kBase + 6 * q); });
  EXPECT_EQ(v.status, VerdictStatus::Leak) << v.reason;
  EXPECT_TRUE(v.borderline);
  EXPECT_NE(v.borderline_reason.find("growth"), std::string::npos) << v.borderline_reason;
  EXPECT_EQ(v.borderline_reason.find("slope"), std::string::npos) << v.borderline_reason;
}

TEST(Borderline, LeakStartingInTheLastQuarterIsBorderlineAndConfirmedByTwiceTheRun) {
  // 16 B/query from query 760,000 on: it rises in the last block only, one
  // step short of the 2/3 rule, so the run says no leak -- narrowly.  The
  // run --confirm makes (2M queries, the same leak from 760,000) sees it
  // from 38 % on and calls it a leak, clearly.
  auto leak = [](double q) { return std::floor(kBase + 16 * std::max(0.0, q - 760'000)); };
  auto first = judge_run(Layer::Rss, kRun, leak);
  EXPECT_EQ(first.status, VerdictStatus::NoLeak) << first.reason;
  EXPECT_TRUE(first.borderline) << first.reason;
  auto again = judge_run(Layer::Rss, kTwice, leak);
  EXPECT_EQ(again.status, VerdictStatus::Leak) << again.reason;
  EXPECT_FALSE(again.borderline) << again.borderline_reason;
}

TEST(Borderline, RiseLastingIntoTheLastWindowIsBorderlineAndClearedByTwiceTheRun) {
  // A foreign library whose warm-up rise (100 MB) lasts until query 790,000,
  // just before the last block: its minima rise in every step, so it is a
  // leak by the rule, but the last window is flat: growth slowed.  Twice the
  // run shows the plateau: no leak, clearly.
  auto rise = [](double q) { return std::floor(kBase + 100 * kMiB * std::min(q, 790'000.0) / 790'000); };
  auto first = judge_run(Layer::Rss, kRun, rise);
  EXPECT_EQ(first.status, VerdictStatus::Leak) << first.reason;
  EXPECT_TRUE(first.borderline);
  EXPECT_NE(first.borderline_reason.find("slowed"), std::string::npos) << first.borderline_reason;
  auto again = judge_run(Layer::Rss, kTwice, rise);
  EXPECT_EQ(again.status, VerdictStatus::NoLeak) << again.reason;
  EXPECT_FALSE(again.borderline) << again.borderline_reason;
}

TEST(Borderline, StepAtTheLastBlockIsBorderlineAndClearedByTwiceTheRun) {
  // One 32 MB step exactly where the last block starts looks like growth in
  // the last window; twice the run puts it in the middle: a plateau.
  auto step = [](double q) { return kBase + (q >= 800'000 ? 32 * kMiB : 0); };
  auto first = judge_run(Layer::Rss, kRun, step);
  EXPECT_EQ(first.status, VerdictStatus::NoLeak) << first.reason;
  EXPECT_TRUE(first.borderline) << first.reason;
  auto again = judge_run(Layer::Rss, kTwice, step);
  EXPECT_EQ(again.status, VerdictStatus::NoLeak) << again.reason;
  EXPECT_FALSE(again.borderline) << again.borderline_reason;
}

TEST(Borderline, InsufficientAndUnavailableAreNeverBorderline) {
  dalmon::MetricSeries none;
  EXPECT_FALSE(judge(Layer::Rss, none).borderline);
  dalmon::MetricSeries few;
  for (int i = 0; i < 4; ++i) few.add(i * 300'000.0, kBase + 16 * i * 300'000.0);
  auto v = judge(Layer::Rss, few);
  EXPECT_EQ(v.status, VerdictStatus::Insufficient);
  EXPECT_FALSE(v.borderline);
}

}  // namespace
