// Text and JSON reports: blocks, figures, schema, escaping.
#include <gtest/gtest.h>

#include "fakes.hpp"
#include "json_writer.hpp"
#include "mini_json.hpp"
#include "text_report.hpp"

namespace {

// A 1M-query fake run whose counts are those of the seed study's 1e8 queries
// (87-byte requests, 34-byte responses), so the report must say 11,539 MB.
struct SeedRun {
  fakes::World w;
  fakes::FakeSource src{w};
  std::unique_ptr<dalmon::Monitor> m;
  explicit SeedRun(const char *params = "driver=node-napi;runtime=node v22;queries=100000000;sample_every=1000000",
                   bool leak = false) {
    if (leak) w.leak = dalmon::Layer::Malloc;
    dalmon::RunParams p;
    std::string err;
    if (!dalmon::parse_run_params(params, p, err)) throw std::runtime_error(err);
    m = std::make_unique<dalmon::Monitor>(p, &src, std::make_unique<fakes::FakeProbe>(w));
    // 101 samples, one per million queries, as in the seed study.
    for (int i = 0; i <= 100; ++i) {
      w.q = int64_t{i} * 1'000'000;
      m->sample(int64_t{i} * 1'000'000, fakes::js_of(w), err);
    }
    m->count(100'000'000, 8'700'000'000, 3'400'000'000, 0);
    m->mark_startup(32 * 1024 * 1024, 12'345'678);
    for (int i = 0; i < 1000; ++i) m->record_latency(700 + i);
    m->finish();
  }
};

TEST(TextReport, HasTheSeedBlocksAndTheNewFigures) {
  SeedRun run;
  const std::string &t = run.m->text_report();
  for (const char *needle :
       {"\nSTART\n", "\nITERATION 1,000,000\n", "\nITERATION 99,000,000\n", "\nAVERAGE\n", "\nEND 100,000,000\n",
        "Data transferred: 11,539 MB", "Time to end: ", "Queries per second: ", "p50 ", "p97.5 ", "p99 ",
        "max ", "CPU: ", "RSS after load 32.0 MB", "time to first query 12.35 ms", "Leak verdict",
        "js_heap", "shim_buffers", "statements", "VERDICT: NO LEAK (exit code 0)"}) {
    EXPECT_NE(t.find(needle), std::string::npos) << "missing: " << needle << "\n" << t;
  }
  // Same bytes on a second call (callers size a buffer, then fetch).
  EXPECT_EQ(&t, &run.m->text_report());
}

TEST(TextReport, NamesTheLeakingLayer) {
  SeedRun run("queries=100000000;sample_every=1000000", true);
  const std::string &t = run.m->text_report();
  EXPECT_NE(t.find("VERDICT: LEAK in malloc (exit code 1)"), std::string::npos) << t;
}

TEST(TextReport, SaysErrorOnErrors) {
  fakes::World w;
  fakes::FakeSource src(w);
  dalmon::RunParams p;
  std::string err;
  ASSERT_TRUE(dalmon::parse_run_params("queries=100", p, err));
  dalmon::Monitor m(p, &src, std::make_unique<fakes::FakeProbe>(w));
  for (int q = 0; q <= 100; q += 10) m.sample(q, {}, err);
  m.count(100, 0, 0, 1);
  m.finish();
  EXPECT_NE(m.text_report().find("ERROR: 1 query errors"), std::string::npos);
  EXPECT_NE(m.text_report().find("VERDICT: ERROR"), std::string::npos);
  EXPECT_NE(m.text_report().find("(exit code 2)"), std::string::npos);
}

TEST(TextReport, Formatting) {
  EXPECT_EQ(dalmon::TextReport::mib_grouped(12'100'000'000.0), "11,539");
  EXPECT_EQ(dalmon::TextReport::grouped(0), "0");
  EXPECT_EQ(dalmon::TextReport::grouped(999), "999");
  EXPECT_EQ(dalmon::TextReport::grouped(1000), "1,000");
  EXPECT_EQ(dalmon::TextReport::grouped(-1234567), "-1,234,567");
  EXPECT_EQ(dalmon::TextReport::duration(76.586), "1:16.586");
  EXPECT_EQ(dalmon::TextReport::duration(46.25), "0:46.250");
  EXPECT_EQ(dalmon::TextReport::duration(3725.5), "1:02:05.500");
}

TEST(JsonReport, ParsesAndFollowsTheSchema) {
  SeedRun run;
  auto j = minijson::parse(run.m->json_report());
  EXPECT_EQ(j["schema"].str, "dalkit-stress-report");
  EXPECT_EQ(j["version"].num, 1);
  EXPECT_EQ(j["run"]["driver"].str, "node-napi");
  EXPECT_EQ(j["run"]["queries_planned"].num, 1e8);
  EXPECT_EQ(j["run"]["warmup_share"].num, 0.2);
  EXPECT_EQ(j["startup"]["rss_after_load_bytes"].num, 32 * 1024 * 1024);
  EXPECT_EQ(j["counts"]["queries"].num, 1e8);
  EXPECT_EQ(static_cast<int64_t>(j["counts"]["data_transferred_mib"].num), 11539);
  EXPECT_EQ(j["latency_ns"]["count"].num, 1000);
  for (const char *k : {"p50", "p97_5", "p99", "max", "mean", "stdev", "min"}) EXPECT_TRUE(j["latency_ns"].has(k)) << k;
  ASSERT_EQ(j["samples"].arr.size(), 101u);
  EXPECT_EQ(j["samples"][0]["kind"].str, "start");
  EXPECT_EQ(j["samples"][50]["kind"].str, "iteration");
  EXPECT_EQ(j["samples"][100]["kind"].str, "end");
  EXPECT_TRUE(j["samples"][0]["warmup"].b);
  EXPECT_FALSE(j["samples"][20]["warmup"].b);
  ASSERT_EQ(j["metrics"].arr.size(), static_cast<size_t>(dalmon::kMetricCount));
  for (const auto &mi : j["metrics"].arr) {
    EXPECT_TRUE(j["samples"][7].has(mi["name"].str)) << mi["name"].str;  // every sample has every metric
    EXPECT_TRUE(j["summary"].has(mi["name"].str));
  }
  EXPECT_EQ(j["samples"][3]["planted_bytes"].type, minijson::Value::Null);  // -1 -> null
  EXPECT_TRUE(j["summary"]["rss"]["available"].b);
  EXPECT_TRUE(j["summary"]["rss"].has("slope_per_mquery"));
  ASSERT_EQ(j["layers"].arr.size(), static_cast<size_t>(dalmon::kLayerCount));
  EXPECT_EQ(j["layers"][0]["layer"].str, "js_heap");
  EXPECT_EQ(j["layers"][0]["verdict"].str, "no leak");
  EXPECT_EQ(j["verdict"]["overall"].str, "no leak");
  EXPECT_EQ(j["verdict"]["exit_code"].num, 0);
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

TEST(JsonReport, HostileStringsStayValidJson) {
  std::string nasty = "q\"uo\\te\n\t\x01\x7f bad\xff\xc3(utf8) ok:\xc3\xa9\xe2\x82\xac";
  dalmon::JsonWriter w;
  w.begin_object().key(nasty).value(nasty).key("n").value(std::nan("")).end_object();
  auto j = minijson::parse(w.str());
  ASSERT_EQ(j.obj.size(), 2u);
  EXPECT_EQ(j["n"].type, minijson::Value::Null);
  std::string s;
  for (const auto &[k, v] : j.obj)
    if (k != "n") {
      s = v.str;
      EXPECT_EQ(k, s);  // keys are escaped the same way as values
    }
  EXPECT_NE(s.find("q\"uo\\te\n\t\x01\x7f bad"), std::string::npos);
  EXPECT_NE(s.find("ok:\xc3\xa9\xe2\x82\xac"), std::string::npos);  // valid UTF-8 kept
  EXPECT_NE(s.find("\xef\xbf\xbd"), std::string::npos);            // invalid replaced by U+FFFD
}

TEST(JsonReport, DriverNameIsEscaped) {
  SeedRun run("driver=we\"ird\\name;queries=100000000;sample_every=1000000");
  auto j = minijson::parse(run.m->json_report());
  EXPECT_EQ(j["run"]["driver"].str, "we\"ird\\name");
}

TEST(JsonWriter, EmptyContainersAndNesting) {
  dalmon::JsonWriter w(false);
  w.begin_object().key("a").begin_array().end_array().key("o").begin_object().end_object()
      .key("x").begin_array().value(int64_t{1}).value(2.5).value(true).null().end_array().end_object();
  EXPECT_EQ(w.str(), R"({"a":[],"o":{},"x":[1,2.5,true,null]})");
}

}  // namespace
