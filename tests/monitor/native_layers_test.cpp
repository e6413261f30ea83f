// The allocation tracer's native:<dso> layers (native_layers.hpp,
// docs/attribution.md) through the whole Monitor, with a scripted tracer.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "dso_stats_source.hpp"
#include "fakes.hpp"
#include "mini_json.hpp"
#include "native_layers.hpp"

namespace {

// A tracer's table: index 0 the runtime, then libraries; `leaker` grows
// 16 B/query, `late` appears only from query `late_from` on, the others
// hold a flat amount with a little jitter.
class FakeDsos final : public dalmon::DsoStatsSource {
 public:
  explicit FakeDsos(fakes::World& w) : w_(w) {}

  bool present() noexcept override { return present_; }
  bool read(dalmon::DsoReading& out) override {
    const bool late_seen = w_.q >= late_from;
    out.bytes.assign(late_seen ? names.size() : names.size() - 1, 0);
    for (size_t i = 0; i < out.bytes.size(); ++i) {
      double v = flat[i] + w_.jitter(64 * 1024);
      if (static_cast<int>(i) == leaker) v += 16.0 * static_cast<double>(w_.q);
      out.bytes[i] = flat[i] == 0 ? 0 : static_cast<int64_t>(v);
    }
    out.sample_bytes = 65536;
    return true;
  }
  dalmon::DsoInfo info(int i) override {
    return {names[static_cast<size_t>(i)], "/lib/" + names[static_cast<size_t>(i)], i == 0};
  }
  bool runtime_heap_visible() noexcept override { return visible; }

  bool present_ = true;
  bool visible = true;
  int leaker = 2;
  int64_t late_from = 400'000;
  // The last one is the late DSO.
  std::vector<std::string> names = {"node",    "[vdso]",  "libleak.so", "libbig.so", "libb.so",
                                    "libc.so", "libd.so", "libe.so",    "liblate.so"};
  std::vector<double> flat = {8e6, 0, 1e6, 50e6, 2e6, 1e6, 3e6, 1e6, 1e6};

 private:
  fakes::World& w_;
};

struct TracedRun {
  fakes::World w;
  fakes::FakeSource src{w};
  FakeDsos dsos{w};
  std::unique_ptr<dalmon::Monitor> m;

  void run(const std::string& params = "driver=fake;unit=iteration;queries=1000000;sample_every=10000") {
    dalmon::RunParams p;
    std::string err;
    ASSERT_TRUE(dalmon::parse_run_params(params, p, err)) << err;
    m = std::make_unique<dalmon::Monitor>(p, &src, std::make_unique<fakes::FakeProbe>(w), &dsos);
    for (w.q = 0; w.q <= 1'000'000; w.q += 10'000) ASSERT_GE(m->sample(w.q, fakes::js_of(w), err), 0) << err;
    m->count(1'000'000, 0, 0, 0);
    m->finish();
  }
  const dalmon::NativeLayer* layer(const std::string& name) {
    for (const auto& L : m->finish().native)
      if (L.name == name) return &L;
    return nullptr;
  }
};

TEST(NativeLayers, TheLeakingDsoIsNamedWithItsSlope) {
  TracedRun t;
  t.run();
  const dalmon::RunResult& r = t.m->finish();
  EXPECT_EQ(r.exit_code, 1);
  ASSERT_EQ(r.leaking_layers, std::vector<std::string>{"native:libleak.so"});
  const std::string& text = t.m->text_report();
  EXPECT_NE(text.find("VERDICT: LEAK in native:libleak.so (+16.0 B/iteration) (exit code 1)"), std::string::npos)
      << text;
  // The flat DSOs and the runtime are judged too, and are clean.
  for (const char* clean : {"native:runtime", "native:others"}) {
    const auto* L = t.layer(clean);
    ASSERT_NE(L, nullptr) << clean;
    EXPECT_EQ(L->verdict.status, dalmon::VerdictStatus::NoLeak) << clean;
  }
}

TEST(NativeLayers, TopFourByGrowthThenRuntimeThenOthers) {
  TracedRun t;
  t.run();
  std::vector<std::string> names;
  for (const auto& L : t.m->finish().native) names.push_back(L.name);
  ASSERT_EQ(names.size(), 6u);
  EXPECT_EQ(names[0], "native:libleak.so");  // grew most
  EXPECT_EQ(names[4], "native:runtime");
  EXPECT_EQ(names[5], "native:others");
  // [vdso] never held a byte: in no layer, not even native:others.
  const auto* others = t.layer("native:others");
  ASSERT_NE(others, nullptr);
  for (const auto& d : others->dsos) EXPECT_EQ(d.find("vdso"), std::string::npos);
  // The late DSO's 1 MB step after warm-up ranks it second (a step, no
  // leak); 7 libraries held bytes, 4 are shown, 3 are summed.
  EXPECT_EQ(names[1], "native:liblate.so");
  EXPECT_EQ(t.layer("native:liblate.so")->verdict.status, dalmon::VerdictStatus::NoLeak);
  EXPECT_EQ(others->dsos.size(), 3u);
}

TEST(NativeLayers, ADsoThatAppearsLateIsZeroBefore) {
  TracedRun t;
  t.dsos.leaker = 8;  // the late DSO leaks from its first sample on
  t.run();
  const auto* L = t.layer("native:liblate.so");
  ASSERT_NE(L, nullptr);
  EXPECT_EQ(L->values.front(), 0);
  EXPECT_GT(L->values.back(), 16'000'000 - 1);
  EXPECT_EQ(L->verdict.status, dalmon::VerdictStatus::Leak);
  EXPECT_EQ(t.m->finish().leaking_layers, std::vector<std::string>{"native:liblate.so"});
}

TEST(NativeLayers, AnInvisibleRuntimeHeapIsNotAvailableNeverZero) {
  TracedRun t;
  t.dsos.visible = false;
  t.run();
  const auto* L = t.layer("native:runtime");
  ASSERT_NE(L, nullptr);
  EXPECT_EQ(L->verdict.status, dalmon::VerdictStatus::NotAvailable);
  EXPECT_FALSE(L->summary.available);
  const std::string& text = t.m->text_report();
  EXPECT_NE(text.find("native:runtime n/a"), std::string::npos) << text;
  auto j = minijson::parse(t.m->json_report());
  EXPECT_FALSE(j["attribution"]["runtime_heap_visible"].b);
  for (const auto& s : j["samples"].arr) EXPECT_TRUE(s["native:runtime"].type == minijson::Value::Null);
  // n/a is not "too few samples": the run still has a verdict.
  EXPECT_EQ(t.m->finish().exit_code, 1);
}

TEST(NativeLayers, JsonListsTheLayersAsMetricsWithTheirDsos) {
  TracedRun t;
  t.run();
  auto j = minijson::parse(t.m->json_report());
  bool found = false;
  for (const auto& l : j["layers"].arr) {
    if (l["layer"].str != "native:libleak.so") continue;
    found = true;
    EXPECT_EQ(l["metric"].str, "native:libleak.so");
    EXPECT_EQ(l["verdict"].str, "leak");
    ASSERT_EQ(l["dsos"].arr.size(), 1u);
    EXPECT_EQ(l["dsos"].arr[0].str, "/lib/libleak.so");
  }
  EXPECT_TRUE(found);
  EXPECT_TRUE(j["summary"]["native:libleak.so"]["available"].b);
  EXPECT_FALSE(j["samples"].arr[0]["native:libleak.so"].type == minijson::Value::Null);
  EXPECT_TRUE(j["attribution"]["tracer"].b);
  EXPECT_EQ(j["attribution"]["sample_bytes"].num, 65536);
  EXPECT_EQ(j["attribution"]["dsos"].arr.size(), 9u);
  EXPECT_EQ(j["attribution"]["dsos"].arr[0]["layer"].str, "native:runtime");
  EXPECT_EQ(j["verdict"]["leaking_layers"].arr[0].str, "native:libleak.so");
}

TEST(NativeLayers, NoTracerNoNativeLayer) {
  TracedRun t;
  t.dsos.present_ = false;
  t.run();
  EXPECT_TRUE(t.m->finish().native.empty());
  EXPECT_EQ(t.m->text_report().find("native:"), std::string::npos);
  auto j = minijson::parse(t.m->json_report());
  EXPECT_FALSE(j["attribution"]["tracer"].b);
  EXPECT_EQ(t.m->finish().exit_code, 0);
}

TEST(NativeLayers, ThresholdsOfTheirOwn) {
  TracedRun t;
  // 16 B/iteration is under a slope limit of 20: no leak.
  t.run("driver=fake;unit=iteration;queries=1000000;sample_every=10000;slope.native=20;growth.native=1e6");
  const auto* L = t.layer("native:libleak.so");
  ASSERT_NE(L, nullptr);
  EXPECT_EQ(L->verdict.threshold.slope_limit, 20);
  EXPECT_EQ(L->verdict.threshold.min_growth, 1e6);
  EXPECT_EQ(L->verdict.status, dalmon::VerdictStatus::NoLeak);
}

TEST(NativeLayers, ElfImportsOfThisTestAndOfANonElf) {
  // This test program calls operator new and malloc through libstdc++/libc.
  EXPECT_TRUE(dalmon::elf_imports_allocator("/proc/self/exe"));
  EXPECT_FALSE(dalmon::elf_imports_allocator("/proc/self/status"));
  EXPECT_FALSE(dalmon::elf_imports_allocator("/nonexistent"));
}

}  // namespace
