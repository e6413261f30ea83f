// dalmon_start's run parameters, on the kit's one k=v and number parsers.
#include <gtest/gtest.h>

#include "run_params.hpp"

namespace {

dalmon::RunParams parsed(const char* text) {
  dalmon::RunParams p;
  std::string err;
  EXPECT_TRUE(dalmon::parse_run_params(text, p, err)) << text << ": " << err;
  return p;
}

std::string error_of(const char* text) {
  dalmon::RunParams p;
  p.driver = "untouched";
  std::string err;
  EXPECT_FALSE(dalmon::parse_run_params(text, p, err)) << text;
  EXPECT_EQ(p.driver, "untouched") << "a failed parse leaves the output alone";
  return err;
}

TEST(RunParams, DefaultsAndDerivedSampleEvery) {
  auto p = parsed("");
  EXPECT_EQ(p.driver, "unknown");
  EXPECT_EQ(p.queries_planned, 0);
  EXPECT_EQ(p.sample_every, 0);
  EXPECT_DOUBLE_EQ(p.warmup_share, 0.2);
  EXPECT_TRUE(p.force_gc);
  EXPECT_FALSE(p.verbose);
  EXPECT_EQ(p.min_samples, 6);
  EXPECT_EQ(parsed("queries=1e8").sample_every, 1'000'000);  // queries/100
  EXPECT_EQ(parsed("queries=50").sample_every, 1);           // never 0 with a plan
}

TEST(RunParams, EveryKey) {
  auto p = parsed(
      "driver=bun-ffi;runtime=bun 1.2.0;mode=into via direct;queries=100_000_000,sample_every=2e6;"
      "warmup=0.25;threads=4;force_gc=0;verbose=1;min_samples=10;slope.rss=1.5;growth.statements=3");
  EXPECT_EQ(p.driver, "bun-ffi");
  EXPECT_EQ(p.runtime, "bun 1.2.0");
  EXPECT_EQ(p.mode, "into via direct");
  EXPECT_EQ(p.queries_planned, 100'000'000);
  EXPECT_EQ(p.sample_every, 2'000'000);
  EXPECT_DOUBLE_EQ(p.warmup_share, 0.25);
  EXPECT_EQ(p.threads, 4);
  EXPECT_FALSE(p.force_gc);
  EXPECT_TRUE(p.verbose);
  EXPECT_EQ(p.min_samples, 10);
  EXPECT_DOUBLE_EQ(p.thresholds[static_cast<int>(dalmon::Layer::Rss)].slope_limit, 1.5);
  EXPECT_DOUBLE_EQ(p.thresholds[static_cast<int>(dalmon::Layer::Statements)].min_growth, 3);
  // Untouched rows keep their defaults.
  EXPECT_DOUBLE_EQ(p.thresholds[static_cast<int>(dalmon::Layer::Rss)].min_growth,
                   dalmon::default_thresholds()[static_cast<int>(dalmon::Layer::Rss)].min_growth);
}

TEST(RunParams, BadInputNamesTheItem) {
  EXPECT_NE(error_of("queries=-1").find("bad value for 'queries'"), std::string::npos);
  EXPECT_NE(error_of("queries=1.5").find("'queries'"), std::string::npos);  // not an integer
  EXPECT_NE(error_of("warmup=0.91").find("share 0..0.9"), std::string::npos);
  EXPECT_NE(error_of("threads=0").find("1..4096"), std::string::npos);
  EXPECT_NE(error_of("min_samples=3").find("4..1000000"), std::string::npos);
  EXPECT_NE(error_of("force_gc=yes").find("0 or 1"), std::string::npos);
  EXPECT_NE(error_of("slope.rss=-1").find("number >= 0"), std::string::npos);
  EXPECT_NE(error_of("slope.rss=nan").find("'slope.rss'"), std::string::npos);
  EXPECT_NE(error_of("growth.nosuch=1").find("unknown key 'growth.nosuch'"), std::string::npos);
  EXPECT_NE(error_of("queries =10").find("whitespace"), std::string::npos);
  EXPECT_NE(error_of("queries=10;queries=20").find("twice"), std::string::npos);
  EXPECT_NE(error_of("queries").find("expected key=value"), std::string::npos);
}

}  // namespace
