// A --target run (docs/targets.md): unit=iteration changes the reports'
// words, and without a DAL loaded the DAL's layers are not in the run at all.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "dalmonitor.h"
#include "fakes.hpp"
#include "mini_json.hpp"
#include "run_params.hpp"

namespace {

const std::set<std::string> kProcessLayers = {"js_heap", "js_external", "rss", "malloc"};

// 1M iterations sampled every 10,000, optionally without a DAL and with one
// leaking layer; finished.
struct TargetRun : fakes::FakeRun {
  explicit TargetRun(bool dal, std::optional<dalmon::Layer> leak = std::nullopt,
                     const std::string& params = "driver=node-addon;unit=iteration;queries=1000000;sample_every=10000")
      : FakeRun(params, leak) {
    src.dal_loaded = dal;
    sample_to(1'000'000, 10'000);
    m->mark_startup(32 * 1024 * 1024, 5'000'000);
    for (int i = 0; i < 100; ++i) m->record_latency(900 + i);
    m->finish();
  }
};

std::vector<std::string> layers_in_json(dalmon::Monitor& m) {
  auto j = minijson::parse(m.json_report());
  std::vector<std::string> names;
  for (const auto& l : j["layers"].arr) names.push_back(l["layer"].str);
  return names;
}

TEST(RunParamsUnit, QueryByDefaultIterationOnRequest) {
  dalmon::RunParams p;
  std::string err;
  ASSERT_TRUE(dalmon::parse_run_params("", p, err)) << err;
  EXPECT_EQ(p.unit, dalmon::WorkUnit::Query);
  ASSERT_TRUE(dalmon::parse_run_params("unit=iteration", p, err)) << err;
  EXPECT_EQ(p.unit, dalmon::WorkUnit::Iteration);
  ASSERT_TRUE(dalmon::parse_run_params("unit=query", p, err)) << err;
  EXPECT_EQ(p.unit, dalmon::WorkUnit::Query);
  EXPECT_FALSE(dalmon::parse_run_params("unit=iterations", p, err));
  EXPECT_NE(err.find("bad value for 'unit': 'iterations' (query or iteration)"), std::string::npos) << err;
  EXPECT_FALSE(dalmon::parse_run_params("unit=", p, err));
}

TEST(TargetRun, TextSaysIterationAndNeverQuery) {
  TargetRun run(false);
  const std::string& t = run.m->text_report();
  for (const char* needle :
       {"planned 1,000,000 iterations", "Memory: START at iteration 0,", "END at iteration 1,000,000\n",
        "Iterations: 1,000,000, errors: 0\n", "Iterations per second: ", "time to first iteration 5.00 ms",
        "Leak verdict: warm-up ends at iteration 200,000; growth and slope after warm-up, "
        "iterations 200,000..1,000,000 (81 samples)",
        "B/it = bytes per iteration, /Mit = objects per million iterations", "VERDICT: NO LEAK (exit code 0)"})
    EXPECT_NE(t.find(needle), std::string::npos) << "missing: " << needle << "\n" << t;
  // No DAL requests or responses to count.
  EXPECT_EQ(t.find("Data transferred"), std::string::npos) << t;
  EXPECT_EQ(t.find("quer"), std::string::npos) << t;
}

// Whether some number printed just before `unit` (as in " 15.93 B/it ")
// is the planted 16 B fitted through the fake's jitter: 15 <= x < 17.
// A scan, not std::regex: <regex> alone cost this file ~9 s of compile time
// in every build.
namespace {
bool has_slope_near_16(const std::string& text, const std::string& unit) {
  for (size_t at = text.find(unit); at != std::string::npos; at = text.find(unit, at + 1)) {
    size_t start = at;
    while (start > 0 && (std::isdigit(static_cast<unsigned char>(text[start - 1])) || text[start - 1] == '.')) --start;
    if (start == at || (start > 0 && text[start - 1] != ' ')) continue;
    const double x = std::strtod(text.substr(start, at - start).c_str(), nullptr);
    if (x >= 15 && x < 17) return true;
  }
  return false;
}
}  // namespace

TEST(TargetRun, LeakIsInBytesPerIteration) {
  TargetRun run(false, dalmon::Layer::Malloc);
  const std::string& t = run.m->text_report();
  // 16 B/iteration planted, fitted through the fake's jitter.
  EXPECT_TRUE(has_slope_near_16(t, " B/it ")) << t;
  EXPECT_NE(t.find(" > 0.5 B/it "), std::string::npos) << t;
  EXPECT_NE(t.find("VERDICT: LEAK in malloc (exit code 1)"), std::string::npos) << t;
  auto j = minijson::parse(run.m->json_report());
  for (const auto& l : j["layers"].arr) {
    if (l["layer"].str != "malloc") continue;
    const std::string& reason = l["reason"].str;
    EXPECT_EQ(reason.rfind("slope ", 0), 0u) << reason;
    EXPECT_TRUE(has_slope_near_16(reason, " B/iteration > limit 0.5 B/iteration;")) << reason;
  }
}

TEST(TargetRun, IncompleteRunCountsIterations) {
  fakes::FakeRun run("unit=iteration;queries=1000000;sample_every=10000");
  run.src.dal_loaded = false;
  run.sample_to(500'000, 10'000);
  run.m->mark_interrupted("SIGINT");
  const std::string& t = run.m->text_report();
  EXPECT_NE(t.find("ERROR: interrupted (SIGINT) after 500,000 of 1,000,000 planned iterations\n"), std::string::npos)
      << t;
  EXPECT_NE(t.find("VERDICT: ERROR, interrupted after 500,000 iterations; partial verdict: no leak in the 4 layers "
                   "judged (exit code 2)"),
            std::string::npos)
      << t;
}

TEST(TargetRun, WithoutTheDalOnlyTheProcessLayersExist) {
  TargetRun run(false);
  const auto names = layers_in_json(*run.m);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), kProcessLayers);
  EXPECT_EQ(names.front(), "js_heap");  // fixed order kept
  const std::string& t = run.m->text_report();
  for (const char* gone : {"go_heap", "sqlite", "dal_buffers", "shim_buffers", "statements"})
    EXPECT_EQ(t.find(gone), std::string::npos) << gone << " must not appear:\n" << t;
  auto j = minijson::parse(run.m->json_report());
  EXPECT_EQ(j["version"].num, DALMON_REPORT_SCHEMA_VERSION);
  EXPECT_EQ(j["run"]["unit"].str, "iteration");
  // The metrics stay in the schema, as "not available": never a flat 0.
  EXPECT_EQ(j["samples"][5]["go_heap_alloc"].type, minijson::Value::Null);
  EXPECT_EQ(j["samples"][5]["shim_buffers"].type, minijson::Value::Null);
  EXPECT_FALSE(j["summary"]["sqlite_memory"]["available"].b);
}

TEST(TargetRun, WithTheDalEveryLayerIsJudged) {
  // A target that uses the kit's DAL: its layers are back, and a leak in one is found there.
  TargetRun run(true, dalmon::Layer::GoHeap);
  const auto names = layers_in_json(*run.m);
  ASSERT_EQ(names.size(), static_cast<size_t>(dalmon::kLayerCount));
  const std::string& t = run.m->text_report();
  EXPECT_NE(t.find("VERDICT: LEAK in go_heap (exit code 1)"), std::string::npos) << t;
  EXPECT_NE(t.find("\n  statements "), std::string::npos) << t;
}

TEST(TargetRun, QueryRunsWithoutTheDalLeaveItsLayersOutToo) {
  // The rule is the DAL's presence, not the unit: a query run whose source
  // never answered has no DAL layers either, and says "query".
  TargetRun run(false, std::nullopt, "driver=fake;queries=1000000;sample_every=10000");
  const auto names = layers_in_json(*run.m);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), kProcessLayers);
  auto j = minijson::parse(run.m->json_report());
  EXPECT_EQ(j["run"]["unit"].str, "query");
  EXPECT_NE(run.m->text_report().find("Queries per second: "), std::string::npos);
}

}  // namespace
