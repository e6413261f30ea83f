// Text and JSON reports: blocks, figures, schema, escaping.
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "fakes.hpp"
#include "format.hpp"
#include "json_writer.hpp"
#include "mini_json.hpp"

namespace {

// A fake run with the seed study's shape: 1e8 queries of 87-byte requests
// and 34-byte responses (so the report must say 11,539 MB), 101 samples, one
// per million queries.
struct SeedRun : fakes::FakeRun {
  explicit SeedRun(const char* params = "driver=node-napi;runtime=node v22;queries=100000000;sample_every=1000000",
                   bool leak = false)
      : FakeRun(params, leak ? std::optional(dalmon::Layer::Malloc) : std::nullopt) {
    sample_to(100'000'000, 1'000'000);
    m->mark_startup(32 * 1024 * 1024, 12'345'678);
    for (int i = 0; i < 1000; ++i) m->record_latency(700 + i);
    m->finish();
  }
};

std::vector<std::string> lines_of(const std::string& t) {
  std::vector<std::string> out;
  std::istringstream in(t);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The line of the verdict table (after "Leak verdict") that starts with the layer's name.
std::string verdict_row(const std::string& t, const std::string& layer) {
  bool in_table = false;
  for (const auto& l : lines_of(t)) {
    in_table = in_table || l.rfind("Leak verdict", 0) == 0;
    if (in_table && l.rfind("  " + layer + " ", 0) == 0) return l;
  }
  return "";
}

TEST(TextReport, HasTheSeedFiguresAndTheNewOnes) {
  SeedRun run;
  const std::string& t = run.m->text_report();
  for (const char* needle : {"Memory: START at query 0, AVERAGE of 101 samples, END at query 100,000,000\n",
                             "START",
                             "AVERAGE",
                             "END",
                             "\n  rss ",
                             "\n  go_heap_alloc ",
                             "Data transferred: 11,539 MB",
                             "Time to end: ",
                             "Queries per second: ",
                             "p50 ",
                             "p97.5 ",
                             "p99 ",
                             "max ",
                             "CPU: ",
                             "RSS after load 32.0 MB",
                             "time to first query 12.35 ms",
                             "Leak verdict: warm-up ends at query 20,000,000; growth and slope after warm-up, "
                             "queries 20,000,000..100,000,000 (81 samples)",
                             "js_heap",
                             "shim_buffers",
                             "statements",
                             "VERDICT: NO LEAK (exit code 0)"}) {
    EXPECT_NE(t.find(needle), std::string::npos) << "missing: " << needle << "\n" << t;
  }
  // Same bytes on a second call (callers size a buffer, then fetch).
  EXPECT_EQ(&t, &run.m->text_report());
}

TEST(TextReport, DefaultRunFitsOnAScreen) {
  // 101 samples used to print 101 blocks (1,554 lines for a default run).
  SeedRun run;
  const std::string& t = run.m->text_report();
  auto lines = lines_of(t);
  EXPECT_LE(lines.size(), 60u) << t;
  EXPECT_EQ(t.find("ITERATION"), std::string::npos) << t;
}

TEST(TextReport, VerboseListsEverySample) {
  SeedRun run("driver=node-napi;queries=100000000;sample_every=1000000;verbose=1");
  const std::string& t = run.m->text_report();
  for (const char* needle : {"\nSTART\n", "\nITERATION 1,000,000\n", "\nITERATION 99,000,000\n", "\nEND 100,000,000\n",
                             "Memory: START", "VERDICT: NO LEAK"})
    EXPECT_NE(t.find(needle), std::string::npos) << "missing: " << needle;
  size_t iterations = 0;
  for (const auto& l : lines_of(t)) iterations += l.rfind("ITERATION ", 0) == 0;
  EXPECT_EQ(iterations, 99u);
}

TEST(TextReport, SlopeAndLimitShareTheirUnit) {
  // malloc leaks 16 B/query: its slope and its limit are both in B/q, and
  // object-count layers both in /Mq, so a reader compares like with like.
  SeedRun run("queries=100000000;sample_every=1000000", true);
  const std::string& t = run.m->text_report();
  const std::string malloc_row = verdict_row(t, "malloc");
  ASSERT_FALSE(malloc_row.empty()) << t;
  EXPECT_NE(malloc_row.find(" 16.00 B/q "), std::string::npos) << malloc_row;  // the planted 16 B/query itself
  EXPECT_NE(malloc_row.find(" > 0.5 B/q "), std::string::npos) << malloc_row;
  EXPECT_NE(malloc_row.find(" leak"), std::string::npos) << malloc_row;
  const std::string stmt_row = verdict_row(t, "statements");
  EXPECT_NE(stmt_row.find("/Mq "), stmt_row.rfind("/Mq ")) << "slope and limit both in /Mq: " << stmt_row;
  EXPECT_NE(stmt_row.find(" > 0/Mq "), std::string::npos) << stmt_row;
  EXPECT_EQ(stmt_row.find("B/q"), std::string::npos) << stmt_row;
  EXPECT_NE(t.find("B/q = bytes per query, /Mq = objects per million queries"), std::string::npos);
}

TEST(TextReport, InterruptedRunSaysSoAndGivesAPartialVerdict) {
  fakes::FakeRun run("driver=fake;queries=1000000;sample_every=10000");
  run.sample_to(450'000, 10'000, /*js=*/false);
  dalmon::Monitor& m = *run.m;
  m.mark_interrupted("SIGINT");
  const std::string& t = m.text_report();
  EXPECT_NE(t.find("ERROR: interrupted (SIGINT) after 450,000 of 1,000,000 planned queries\n"), std::string::npos) << t;
  EXPECT_NE(t.find("queries 200,000..450,000 (26 samples)"), std::string::npos) << t;
  EXPECT_NE(verdict_row(t, "rss").find("no leak (partial)"), std::string::npos) << t;
  EXPECT_NE(verdict_row(t, "js_heap").find("n/a"), std::string::npos) << t;
  EXPECT_NE(t.find("VERDICT: ERROR, interrupted after 450,000 queries; partial verdict: no leak in the 11 layers "
                   "judged (exit code 2)"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("sample_every"), std::string::npos) << "no advice to sample more often: " << t;
  EXPECT_LE(lines_of(t).size(), 60u);
}

TEST(TextReport, InterruptedInWarmupSaysWhatAVerdictNeeds) {
  fakes::FakeRun run("driver=fake;queries=100000000;sample_every=1000000");
  run.sample_to(3'000'000, 1'000'000, /*js=*/false);
  dalmon::Monitor& m = *run.m;
  m.mark_interrupted("");
  const std::string& t = m.text_report();
  EXPECT_NE(t.find("ERROR: interrupted after 3,000,000 of 100,000,000 planned queries\n"), std::string::npos) << t;
  EXPECT_NE(t.find("ERROR: a verdict needs at least 6 samples after warm-up (warm-up ends at query 20,000,000); "
                   "this run has 0\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("Leak verdict: warm-up ends at query 20,000,000; no sample after warm-up"), std::string::npos) << t;
  EXPECT_NE(verdict_row(t, "rss").find("insufficient"), std::string::npos) << t;
  EXPECT_NE(t.find("VERDICT: ERROR, interrupted after 3,000,000 queries, before any layer had enough samples for a "
                   "verdict (exit code 2)"),
            std::string::npos)
      << t;
}

TEST(TextReport, NamesTheLeakingLayer) {
  SeedRun run("queries=100000000;sample_every=1000000", true);
  const std::string& t = run.m->text_report();
  EXPECT_NE(t.find("VERDICT: LEAK in malloc (exit code 1)"), std::string::npos) << t;
}

TEST(TextReport, SaysErrorOnErrors) {
  fakes::FakeRun run("queries=100");
  run.sample_to(100, 10);
  run.m->count(0, 0, 0, 1);
  const std::string& t = run.m->text_report();
  EXPECT_NE(t.find("ERROR: 1 query errors"), std::string::npos) << t;
  EXPECT_NE(t.find("VERDICT: ERROR, the run proves nothing (exit code 2)"), std::string::npos) << t;
}

TEST(TextReport, ErrorStillNamesTheGrowingLayers) {
  fakes::FakeRun run("queries=1000000;sample_every=10000", dalmon::Layer::GoHeap);
  run.sample_to(1'000'000, 10'000);
  run.m->fail("wrong answer at query 17");
  const std::string& t = run.m->text_report();
  EXPECT_NE(t.find("ERROR: wrong answer at query 17\n"), std::string::npos) << t;
  EXPECT_NE(t.find("VERDICT: ERROR, the run proves nothing; growth seen in go_heap (exit code 2)"), std::string::npos)
      << t;
}

TEST(TextReport, Formatting) {
  EXPECT_EQ(dalmon::mib_grouped(12'100'000'000.0), "11,539");
  EXPECT_EQ(dalmon::grouped(0), "0");
  EXPECT_EQ(dalmon::grouped(999), "999");
  EXPECT_EQ(dalmon::grouped(1000), "1,000");
  EXPECT_EQ(dalmon::grouped(-1234567), "-1,234,567");
  EXPECT_EQ(dalmon::duration_text(76.586), "1:16.586");
  EXPECT_EQ(dalmon::duration_text(46.25), "0:46.250");
  EXPECT_EQ(dalmon::duration_text(3725.5), "1:02:05.500");
}

TEST(JsonReport, ParsesAndFollowsTheSchema) {
  SeedRun run;
  auto j = minijson::parse(run.m->json_report());
  EXPECT_EQ(j["schema"].str, "dalkit-stress-report");
  EXPECT_EQ(j["version"].num, 3);
  EXPECT_EQ(j["run"]["unit"].str, "query");
  EXPECT_EQ(j["run"]["driver"].str, "node-napi");
  EXPECT_EQ(j["run"]["queries_planned"].num, 1e8);
  EXPECT_EQ(j["run"]["warmup_share"].num, 0.2);
  EXPECT_EQ(j["startup"]["rss_after_load_bytes"].num, 32 * 1024 * 1024);
  EXPECT_EQ(j["counts"]["queries"].num, 1e8);
  EXPECT_EQ(static_cast<int64_t>(j["counts"]["data_transferred_mib"].num), 11539);
  EXPECT_EQ(j["latency_ns"]["count"].num, 1000);
  for (const char* k : {"p50", "p97_5", "p99", "max", "mean", "stdev", "min"}) EXPECT_TRUE(j["latency_ns"].has(k)) << k;
  ASSERT_EQ(j["samples"].arr.size(), 101u);
  EXPECT_EQ(j["samples"][0]["kind"].str, "start");
  EXPECT_EQ(j["samples"][50]["kind"].str, "iteration");
  EXPECT_EQ(j["samples"][100]["kind"].str, "end");
  EXPECT_TRUE(j["samples"][0]["warmup"].b);
  EXPECT_FALSE(j["samples"][20]["warmup"].b);
  ASSERT_EQ(j["metrics"].arr.size(), static_cast<size_t>(dalmon::kMetricCount));
  for (const auto& mi : j["metrics"].arr) {
    EXPECT_TRUE(j["samples"][7].has(mi["name"].str)) << mi["name"].str;  // every sample has every metric
    EXPECT_TRUE(j["summary"].has(mi["name"].str));
  }
  EXPECT_EQ(j["samples"][3]["planted_bytes"].type, minijson::Value::Null);  // -1 -> null
  EXPECT_TRUE(j["summary"]["rss"]["available"].b);
  EXPECT_TRUE(j["summary"]["rss"].has("slope_per_mquery"));
  EXPECT_EQ(j["summary"]["rss"]["post_warmup_samples"].num, 81);
  EXPECT_EQ(j["summary"]["rss"]["warmup_end_queries"].num, 2e7);
  ASSERT_EQ(j["layers"].arr.size(), static_cast<size_t>(dalmon::kLayerCount));
  EXPECT_EQ(j["layers"][0]["layer"].str, "js_heap");
  EXPECT_EQ(j["layers"][0]["verdict"].str, "no leak");
  EXPECT_FALSE(j["layers"][0]["partial"].b);
  // A layer's figures are its metric's summary, written once.
  for (const char* k : {"start", "end", "growth_after_warmup", "slope_per_mquery"})
    EXPECT_FALSE(j["layers"][2].has(k)) << k;
  EXPECT_EQ(j["layers"][2]["metric"].str, "rss_outside_js_heap");
  EXPECT_EQ(j["verdict"]["overall"].str, "no leak");
  EXPECT_EQ(j["verdict"]["exit_code"].num, 0);
  EXPECT_EQ(j["verdict"]["queries_answered"].num, 1e8);
  EXPECT_FALSE(j["verdict"]["interrupted"].b);
  EXPECT_EQ(j["verdict"]["interrupt_cause"].type, minijson::Value::Null);
  EXPECT_FALSE(j["verdict"]["partial"].b);
  EXPECT_EQ(j["verdict"]["span"]["samples"].num, 81);
  EXPECT_EQ(j["verdict"]["span"]["first_queries"].num, 2e7);
  EXPECT_EQ(j["verdict"]["span"]["last_queries"].num, 1e8);
  EXPECT_TRUE(j["verdict"]["errors"].arr.empty());
}

TEST(JsonReport, LeakAndErrorAreInTheVerdict) {
  SeedRun run("queries=100000000;sample_every=1000000", true);
  auto j = minijson::parse(run.m->json_report());
  EXPECT_EQ(j["verdict"]["overall"].str, "leak");
  EXPECT_EQ(j["verdict"]["exit_code"].num, 1);
  ASSERT_EQ(j["verdict"]["leaking_layers"].arr.size(), 1u);
  EXPECT_EQ(j["verdict"]["leaking_layers"][0].str, "malloc");
}

TEST(JsonReport, InterruptedRunIsPartial) {
  fakes::FakeRun run("queries=100000000;sample_every=1000000");
  run.sample_to(10'000'000, 1'000'000, /*js=*/false);
  dalmon::Monitor& m = *run.m;
  m.mark_interrupted("SIGTERM");
  auto j = minijson::parse(m.json_report());
  EXPECT_EQ(j["verdict"]["exit_code"].num, 2);
  EXPECT_TRUE(j["verdict"]["interrupted"].b);
  EXPECT_EQ(j["verdict"]["interrupt_cause"].str, "SIGTERM");
  EXPECT_FALSE(j["verdict"]["partial"].b);  // nothing judged: the run ended in warm-up
  EXPECT_EQ(j["verdict"]["span"]["samples"].num, 0);
  EXPECT_EQ(j["verdict"]["span"]["first_queries"].type, minijson::Value::Null);
  // No post-warm-up sample: no growth or slope, rather than a made-up 0.
  EXPECT_EQ(j["summary"]["rss"]["post_warmup_samples"].num, 0);
  EXPECT_EQ(j["summary"]["rss"]["growth_after_warmup"].type, minijson::Value::Null);
  EXPECT_EQ(j["summary"]["rss"]["slope_per_mquery"].type, minijson::Value::Null);
  EXPECT_EQ(j["layers"][2]["verdict"].str, "insufficient");
}

TEST(JsonReport, HostileStringsStayValidJson) {
  std::string nasty = "q\"uo\\te\n\t\x01\x7f bad\xff\xc3(utf8) ok:\xc3\xa9\xe2\x82\xac";
  dalmon::JsonWriter w;
  w.begin_object().key(nasty).value(nasty).key("n").value(std::nan("")).end_object();
  auto j = minijson::parse(w.str());
  ASSERT_EQ(j.obj.size(), 2u);
  EXPECT_EQ(j["n"].type, minijson::Value::Null);
  std::string s;
  for (const auto& [k, v] : j.obj)
    if (k != "n") {
      s = v.str;
      EXPECT_EQ(k, s);  // keys are escaped the same way as values
    }
  EXPECT_NE(s.find("q\"uo\\te\n\t\x01\x7f bad"), std::string::npos);
  EXPECT_NE(s.find("ok:\xc3\xa9\xe2\x82\xac"), std::string::npos);  // valid UTF-8 kept
  EXPECT_NE(s.find("\xef\xbf\xbd"), std::string::npos);             // invalid replaced by U+FFFD
}

TEST(JsonReport, DriverNameIsEscaped) {
  SeedRun run("driver=we\"ird\\name;queries=100000000;sample_every=1000000");
  auto j = minijson::parse(run.m->json_report());
  EXPECT_EQ(j["run"]["driver"].str, "we\"ird\\name");
}

TEST(JsonWriter, EmptyContainersAndNesting) {
  dalmon::JsonWriter w(false);
  w.begin_object()
      .key("a")
      .begin_array()
      .end_array()
      .key("o")
      .begin_object()
      .end_object()
      .key("x")
      .begin_array()
      .value(int64_t{1})
      .value(2.5)
      .value(true)
      .null()
      .end_array()
      .end_object();
  EXPECT_EQ(w.str(), R"({"a":[],"o":{},"x":[1,2.5,true,null]})");
}

}  // namespace
