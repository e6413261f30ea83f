// --confirm through the C ABI: dalmon_borderline after a borderline run, and
// a confirmation run (dalmon_mark_confirmation) whose reports name the run
// it repeats and say that its own verdict stands.  The js_heap figures are
// the driver's to pass, so the series is planted exactly; the process
// figures (rss, malloc) of this idle test stay flat.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "dalmonitor.h"
#include "mini_json.hpp"

namespace {

constexpr int64_t kBase = 64 << 20;

// js_heap grows 16 B/query from query 760,000 on: in a run of 1M queries a
// borderline "no leak" (rising in the last block only), in one of 2M a leak.
int64_t late_leak_run(int64_t queries) {
  const std::string params =
      "driver=confirm;queries=" + std::to_string(queries) + ";sample_every=" + std::to_string(queries / 100);
  int64_t run = dalmon_start(params.c_str());
  EXPECT_GT(run, 0) << dalmon_last_error();
  for (int64_t q = 0; q <= queries; q += queries / 100) {
    const int64_t heap = kBase + 16 * std::max<int64_t>(0, q - 760'000);
    EXPECT_GE(dalmon_sample(run, q, heap, 2 * kBase, -1, -1), 0) << dalmon_last_error();
  }
  EXPECT_EQ(dalmon_count(run, queries, 0, 0, 0), DALMON_OK);
  return run;
}

std::string text_of(int64_t run) {
  std::string t(static_cast<size_t>(dalmon_report_text(run, nullptr, 0)), '\0');
  dalmon_report_text(run, t.data(), t.size());
  return t;
}

minijson::Value json_of(int64_t run) {
  std::string j(static_cast<size_t>(dalmon_report_json(run, nullptr, 0)), '\0');
  dalmon_report_json(run, j.data(), j.size());
  return minijson::parse(j);
}

TEST(Confirm, BorderlineRunAndItsConfirmation) {
  const int64_t first = late_leak_run(1'000'000);
  EXPECT_EQ(dalmon_borderline(first), DALMON_E_STATE);  // not finished yet
  EXPECT_EQ(dalmon_finish(first), DALMON_EXIT_NO_LEAK);
  EXPECT_EQ(dalmon_borderline(first), 1);
  const std::string t1 = text_of(first);
  EXPECT_NE(t1.find("BORDERLINE: js_heap no leak: "), std::string::npos) << t1;
  EXPECT_NE(t1.find("--confirm repeats it with 2,000,000 queries"), std::string::npos) << t1;
  const auto j1 = json_of(first);
  EXPECT_TRUE(j1["verdict"]["borderline"].b);
  ASSERT_EQ(j1["verdict"]["borderline_layers"].arr.size(), 1u);
  EXPECT_EQ(j1["verdict"]["borderline_layers"][0].str, "js_heap");
  EXPECT_EQ(j1["verdict"]["confirms"].type, minijson::Value::Null);

  const int64_t second = late_leak_run(2'000'000);
  EXPECT_EQ(dalmon_mark_confirmation(second, second), DALMON_E_RANGE);
  EXPECT_EQ(dalmon_mark_confirmation(first, second), DALMON_E_STATE);  // first is finished
  EXPECT_EQ(dalmon_mark_confirmation(second, 987654321), DALMON_E_RUN);
  EXPECT_EQ(dalmon_mark_confirmation(second, first), DALMON_OK) << dalmon_last_error();
  EXPECT_EQ(dalmon_finish(second), DALMON_EXIT_LEAK);
  EXPECT_EQ(dalmon_borderline(second), 0);
  EXPECT_EQ(dalmon_mark_confirmation(second, first), DALMON_E_STATE);  // second is finished
  const std::string t2 = text_of(second);
  EXPECT_NE(t2.find("CONFIRMATION: the run of 1,000,000 queries was borderline (NO LEAK; borderline in js_heap); "
                    "this run repeated it with 2,000,000 queries (--confirm) and its verdict stands"),
            std::string::npos)
      << t2;
  EXPECT_NE(t2.find("VERDICT: LEAK in js_heap (exit code 1)"), std::string::npos) << t2;
  const auto c = json_of(second)["verdict"]["confirms"];
  EXPECT_EQ(c["queries_planned"].num, 1'000'000);
  EXPECT_EQ(c["exit_code"].num, 0);
  EXPECT_EQ(c["overall"].str, "no leak");
  EXPECT_EQ(c["borderline_layers"][0].str, "js_heap");
  EXPECT_EQ(dalmon_end(first), DALMON_OK);
  EXPECT_EQ(dalmon_end(second), DALMON_OK);
}

TEST(Confirm, ErrorRunIsNeverBorderline) {
  const int64_t run = late_leak_run(1'000'000);
  EXPECT_EQ(dalmon_fail(run, "wrong answer"), DALMON_OK);
  EXPECT_EQ(dalmon_finish(run), DALMON_EXIT_ERROR);
  EXPECT_EQ(dalmon_borderline(run), 0);
  EXPECT_EQ(text_of(run).find("BORDERLINE"), std::string::npos);
  EXPECT_EQ(dalmon_end(run), DALMON_OK);
  EXPECT_EQ(dalmon_borderline(run), DALMON_E_RUN);
}

}  // namespace
