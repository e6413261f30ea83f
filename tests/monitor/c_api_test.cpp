// The C ABI: bad ids, NULLs, buffer sizing, states, and a full run.
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "dalmonitor.h"
#include "mini_json.hpp"

namespace {

int64_t full_run(const char* params = "driver=capi;queries=1000;sample_every=100") {
  int64_t run = dalmon_start(params);
  EXPECT_GT(run, 0) << dalmon_last_error();
  EXPECT_EQ(dalmon_mark_startup(run, -1, 5'000'000), DALMON_OK);
  for (int q = 0; q <= 1000; q += 100)
    EXPECT_EQ(dalmon_sample(run, q, 1 << 20, 2 << 20, -1, -1), q / 100) << dalmon_last_error();
  int64_t lat[4] = {1000, 2000, 3000, 4000};
  EXPECT_EQ(dalmon_record_latencies_ns(run, lat, 4), DALMON_OK);
  EXPECT_EQ(dalmon_record_latency_ns(run, 1500), DALMON_OK);
  EXPECT_EQ(dalmon_count(run, 1000, 87'000, 34'000, 0), DALMON_OK);
  return run;
}

TEST(CApi, UnknownRunIds) {
  char buf[16];
  int64_t lat = 1;
  for (int64_t bad : {int64_t{0}, int64_t{-1}, int64_t{INT64_MAX}, int64_t{987654321}}) {
    EXPECT_EQ(dalmon_sample(bad, 0, -1, -1, -1, -1), DALMON_E_RUN);
    EXPECT_EQ(dalmon_last_error_code(), DALMON_E_RUN);
    EXPECT_NE(std::string(dalmon_last_error()).find("unknown run id"), std::string::npos);
    EXPECT_EQ(dalmon_record_latency_ns(bad, 1), DALMON_E_RUN);
    EXPECT_EQ(dalmon_record_latencies_ns(bad, &lat, 1), DALMON_E_RUN);
    EXPECT_EQ(dalmon_count(bad, 1, 1, 1, 0), DALMON_E_RUN);
    EXPECT_EQ(dalmon_mark_startup(bad, 1, 1), DALMON_E_RUN);
    EXPECT_EQ(dalmon_fail(bad, "x"), DALMON_E_RUN);
    EXPECT_EQ(dalmon_finish(bad), DALMON_E_RUN);
    EXPECT_EQ(dalmon_report_text(bad, buf, sizeof buf), DALMON_E_RUN);
    EXPECT_EQ(dalmon_report_json(bad, buf, sizeof buf), DALMON_E_RUN);
    EXPECT_EQ(dalmon_write_json(bad, "/tmp/x.json"), DALMON_E_RUN);
    EXPECT_EQ(dalmon_end(bad), DALMON_E_RUN);
  }
}

TEST(CApi, NullsAndRanges) {
  int64_t run = full_run();
  EXPECT_EQ(dalmon_record_latencies_ns(run, nullptr, 3), DALMON_E_NULL);
  EXPECT_EQ(dalmon_record_latencies_ns(run, nullptr, 0), DALMON_OK);
  int64_t mixed[3] = {5, -5, 7};
  EXPECT_EQ(dalmon_record_latencies_ns(run, mixed, 3), DALMON_E_RANGE);
  EXPECT_EQ(dalmon_record_latency_ns(run, -1), DALMON_E_RANGE);
  EXPECT_EQ(dalmon_count(run, -1, 0, 0, 0), DALMON_E_RANGE);
  EXPECT_EQ(dalmon_sample(run, 10, -1, -1, -1, -1), DALMON_E_RANGE);  // backwards
  EXPECT_NE(std::string(dalmon_last_error()).find("backwards"), std::string::npos);
  EXPECT_EQ(dalmon_fail(run, nullptr), DALMON_OK);   // NULL reason is allowed
  EXPECT_EQ(dalmon_finish(run), DALMON_EXIT_ERROR);  // ...and fails the run
  EXPECT_EQ(dalmon_write_json(run, nullptr), DALMON_E_NULL);
  EXPECT_EQ(dalmon_report_text(run, nullptr, 10), DALMON_E_NULL);
  EXPECT_EQ(dalmon_end(run), DALMON_OK);
}

TEST(CApi, BadParams) {
  EXPECT_EQ(dalmon_start("queries=abc"), DALMON_E_PARAMS);
  EXPECT_NE(std::string(dalmon_last_error()).find("queries"), std::string::npos);
  EXPECT_EQ(dalmon_start("qeuries=10"), DALMON_E_PARAMS);
  EXPECT_NE(std::string(dalmon_last_error()).find("unknown key 'qeuries'"), std::string::npos);
  EXPECT_EQ(dalmon_start("warmup=0.95"), DALMON_E_PARAMS);
  EXPECT_EQ(dalmon_start("slope.nosuchlayer=1"), DALMON_E_PARAMS);
  EXPECT_EQ(dalmon_start("novalue"), DALMON_E_PARAMS);
  EXPECT_EQ(dalmon_start("verbose=yes"), DALMON_E_PARAMS);
  // The kit's one k=v grammar: no whitespace around keys or values, no key twice.
  EXPECT_EQ(dalmon_start("queries=1e8, slope.rss=0.5"), DALMON_E_PARAMS);
  EXPECT_NE(std::string(dalmon_last_error()).find("whitespace"), std::string::npos) << dalmon_last_error();
  EXPECT_EQ(dalmon_start("slope.rss=1;slope.rss=2"), DALMON_E_PARAMS);
  EXPECT_NE(std::string(dalmon_last_error()).find("twice"), std::string::npos) << dalmon_last_error();
  int64_t ok = dalmon_start(nullptr);
  EXPECT_GT(ok, 0);
  EXPECT_EQ(dalmon_end(ok), DALMON_OK);
  // Numbers as people type them, as on dalstress's command line.
  ok = dalmon_start("queries=1e8,slope.rss=0.5;growth.dal_buffers=3,sample_every=1_000_000;verbose=1;");
  EXPECT_GT(ok, 0) << dalmon_last_error();
  EXPECT_EQ(dalmon_end(ok), DALMON_OK);
  ok = dalmon_start("driver=dalstress;runtime=native c++ g++ 12.2.0;mode=into via direct");  // inner spaces
  EXPECT_GT(ok, 0) << dalmon_last_error();
  EXPECT_EQ(dalmon_end(ok), DALMON_OK);
}

TEST(CApi, CodesHaveTheirOwnRange) {
  // libdalshim.so exports dalshim_* and dalmon_*: a code must mean one thing
  // there.  DALSHIM_E_* use -1..-10 and -20..-28 (dalshim.h).
  for (int32_t c : {DALMON_E_RUN, DALMON_E_NULL, DALMON_E_PARAMS, DALMON_E_STATE, DALMON_E_RANGE, DALMON_E_IO,
                    DALMON_E_INTERNAL, DALMON_E_NOMEM, DALMON_E_LIMIT})
    EXPECT_LE(c, -101);
  EXPECT_EQ(dalmon_version() / 1000000, DALMON_VERSION_NUMBER / 1000000);
}

TEST(CApi, TooManyRunsIsALimitNotACrash) {
  std::vector<int64_t> runs;
  int64_t id = 0;
  while ((id = dalmon_start("queries=10")) > 0 && runs.size() < 10'000) runs.push_back(id);
  EXPECT_EQ(id, DALMON_E_LIMIT);
  EXPECT_NE(std::string(dalmon_last_error()).find("too many runs alive"), std::string::npos);
  EXPECT_GE(runs.size(), 16u);
  // Ids stay unique and are never reused after a slot is freed.
  std::vector<int64_t> sorted = runs;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
  ASSERT_EQ(dalmon_end(runs.front()), DALMON_OK);
  int64_t again = dalmon_start("queries=10");
  ASSERT_GT(again, 0) << dalmon_last_error();
  EXPECT_EQ(std::find(runs.begin(), runs.end(), again), runs.end());
  EXPECT_EQ(dalmon_count(runs.front(), 1, 0, 0, 0), DALMON_E_RUN);  // the old id of the reused slot
  EXPECT_EQ(dalmon_count(again, 1, 0, 0, 0), DALMON_OK);
  runs.front() = again;
  for (int64_t r : runs) EXPECT_EQ(dalmon_end(r), DALMON_OK);
}

TEST(CApi, MarkInterrupted) {
  int64_t run = dalmon_start("queries=1000;sample_every=100");
  ASSERT_GT(run, 0);
  for (int q = 0; q <= 500; q += 100) ASSERT_GE(dalmon_sample(run, q, -1, -1, -1, -1), 0);
  EXPECT_EQ(dalmon_count(run, 500, 0, 0, 0), DALMON_OK);
  EXPECT_EQ(dalmon_mark_interrupted(run, nullptr), DALMON_OK);  // NULL cause is allowed
  EXPECT_EQ(dalmon_mark_interrupted(run, "SIGINT"), DALMON_OK);
  EXPECT_EQ(dalmon_finish(run), DALMON_EXIT_ERROR);
  EXPECT_EQ(dalmon_mark_interrupted(run, "late"), DALMON_E_STATE);
  std::string t(static_cast<size_t>(dalmon_report_text(run, nullptr, 0)), '\0');
  dalmon_report_text(run, t.data(), t.size());
  EXPECT_NE(t.find("ERROR: interrupted (SIGINT) after 500 of 1,000 planned queries"), std::string::npos) << t;
  EXPECT_EQ(dalmon_end(run), DALMON_OK);
  EXPECT_EQ(dalmon_mark_interrupted(run, "x"), DALMON_E_RUN);
}

TEST(CApi, HotPathFromManyThreadsIsExact) {
  // Four threads record and count through the lock-free lookup; nothing is lost.
  int64_t run = dalmon_start("queries=400000;sample_every=100000");
  ASSERT_GT(run, 0);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([run] {
      std::vector<int64_t> batch(1000, 2500);
      for (int i = 0; i < 100; ++i) {
        EXPECT_EQ(dalmon_record_latencies_ns(run, batch.data(), batch.size()), DALMON_OK);
        EXPECT_EQ(dalmon_count(run, 1000, 87'000, 34'000, 0), DALMON_OK);
      }
    });
  for (auto& t : ts) t.join();
  for (int q = 0; q <= 400'000; q += 100'000) ASSERT_GE(dalmon_sample(run, q, -1, -1, -1, -1), 0);
  ASSERT_GE(dalmon_finish(run), 0);
  std::string json(static_cast<size_t>(dalmon_report_json(run, nullptr, 0)), '\0');
  dalmon_report_json(run, json.data(), json.size());
  auto j = minijson::parse(json);
  EXPECT_EQ(j["counts"]["queries"].num, 400'000);
  EXPECT_EQ(j["counts"]["bytes_out"].num, 34'000.0 * 400);
  EXPECT_EQ(j["latency_ns"]["count"].num, 400'000);
  EXPECT_EQ(dalmon_end(run), DALMON_OK);
}

TEST(CApi, ReportBeforeFinishAndSampleAfterFinish) {
  int64_t run = full_run();
  char buf[8];
  EXPECT_EQ(dalmon_report_text(run, buf, sizeof buf), DALMON_E_STATE);
  EXPECT_EQ(dalmon_write_json(run, "/tmp/never.json"), DALMON_E_STATE);
  EXPECT_EQ(dalmon_finish(run), DALMON_EXIT_NO_LEAK) << dalmon_last_error();
  EXPECT_EQ(dalmon_finish(run), DALMON_EXIT_NO_LEAK);
  EXPECT_EQ(dalmon_sample(run, 2000, -1, -1, -1, -1), DALMON_E_STATE);
  EXPECT_EQ(dalmon_end(run), DALMON_OK);
  EXPECT_EQ(dalmon_end(run), DALMON_E_RUN);  // ended ids are never valid again
}

TEST(CApi, BufferSizing) {
  int64_t run = full_run();
  ASSERT_EQ(dalmon_finish(run), 0);
  int64_t n = dalmon_report_text(run, nullptr, 0);
  ASSERT_GT(n, 100);
  std::string small(16, '#');
  EXPECT_EQ(dalmon_report_text(run, small.data(), small.size()), n);
  EXPECT_EQ(small, std::string(16, '#'));  // too small: nothing written
  std::string exact(static_cast<size_t>(n), '#');
  EXPECT_EQ(dalmon_report_text(run, exact.data(), exact.size()), n);
  EXPECT_EQ(exact.rfind("dalkit stress run: driver capi", 0), 0u);  // starts with the header line
  EXPECT_NE(exact.find("\nVERDICT: NO LEAK (exit code 0)\n"), std::string::npos);
  std::string roomy(static_cast<size_t>(n) + 1, '#');
  EXPECT_EQ(dalmon_report_text(run, roomy.data(), roomy.size()), n);
  EXPECT_EQ(roomy.back(), '\0');  // cap > n: NUL-terminated
  EXPECT_EQ(roomy.substr(0, n), exact);

  int64_t jn = dalmon_report_json(run, nullptr, 0);
  std::string json(static_cast<size_t>(jn), '\0');
  EXPECT_EQ(dalmon_report_json(run, json.data(), json.size()), jn);
  auto j = minijson::parse(json);
  EXPECT_EQ(j["verdict"]["exit_code"].num, 0);
  EXPECT_EQ(j["counts"]["bytes_in"].num, 87'000);
  EXPECT_EQ(j["latency_ns"]["count"].num, 5);
  EXPECT_EQ(j["samples"].arr.size(), 11u);
  EXPECT_EQ(j["samples"][0]["js_heap_used"].num, 1 << 20);
  EXPECT_EQ(j["samples"][0]["js_external"].type, minijson::Value::Null);
  EXPECT_EQ(dalmon_end(run), DALMON_OK);
}

TEST(CApi, WriteJson) {
  int64_t run = full_run();
  ASSERT_EQ(dalmon_finish(run), 0);
  std::string path = "/tmp/dalmon_test_" + std::to_string(getpid()) + ".json";
  ASSERT_EQ(dalmon_write_json(run, path.c_str()), DALMON_OK) << dalmon_last_error();
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_EQ(minijson::parse(ss.str())["schema"].str, "dalkit-stress-report");
  std::remove(path.c_str());
  EXPECT_EQ(dalmon_write_json(run, "/nonexistent-dir/x.json"), DALMON_E_IO);
  EXPECT_NE(std::string(dalmon_last_error()).find("/nonexistent-dir/x.json"), std::string::npos);
  EXPECT_EQ(dalmon_end(run), DALMON_OK);
}

TEST(CApi, ErrorsCountedGiveExitTwo) {
  int64_t run = full_run();
  ASSERT_EQ(dalmon_count(run, 0, 0, 0, 1), DALMON_OK);
  EXPECT_EQ(dalmon_finish(run), DALMON_EXIT_ERROR);
  std::string t(static_cast<size_t>(dalmon_report_text(run, nullptr, 0)), '\0');
  dalmon_report_text(run, t.data(), t.size());
  EXPECT_NE(t.find("VERDICT: ERROR"), std::string::npos);
  EXPECT_EQ(dalmon_end(run), DALMON_OK);
}

TEST(CApi, LastErrorIsThreadLocal) {
  EXPECT_EQ(dalmon_end(424242), DALMON_E_RUN);
  std::string other;
  int32_t other_code = 99;
  std::thread([&] {
    other = dalmon_last_error();
    other_code = dalmon_last_error_code();
  }).join();
  EXPECT_EQ(other, "");
  EXPECT_EQ(other_code, DALMON_OK);
  EXPECT_NE(std::string(dalmon_last_error()), "");
}

TEST(CApi, HelpersAndVersion) {
  EXPECT_EQ(dalmon_version(), DALMON_VERSION_NUMBER);
  int64_t a = dalmon_now_ns(), b = dalmon_now_ns();
  EXPECT_LE(a, b);
  EXPECT_GT(dalmon_rss_bytes(), 0);
}

TEST(CApi, EndWhileOtherThreadsRecord) {
  int64_t run = dalmon_start("queries=0");
  ASSERT_GT(run, 0);
  std::atomic<bool> stop{false};
  std::vector<std::thread> ts;
  for (int t = 0; t < 3; ++t)
    ts.emplace_back([&] {
      while (!stop.load()) {
        int32_t rc = dalmon_record_latency_ns(run, 100);
        if (rc == DALMON_E_RUN) break;  // ended under us: a clean error, never a crash
        EXPECT_EQ(rc, DALMON_OK);
      }
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(dalmon_end(run), DALMON_OK);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  stop = true;
  for (auto& t : ts) t.join();
}

}  // namespace
