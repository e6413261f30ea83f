// workload_test.cpp -- unit tests of dalstress's workload code (stress/native):
// the integer expressions (C truncation, errors), the templates, loading and
// validation of workload files, and the answer check.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "answer_check.hpp"
#include "expr.hpp"
#include "reference_workload.hpp"
#include "workload.hpp"

namespace {

using dalstress::Bytes;
using dalstress::ExpandedQuery;
using dalstress::Expr;
using dalstress::Workload;
using dalstress::WorkloadError;
using json = nlohmann::ordered_json;

int64_t eval(const std::string& text, std::vector<int64_t> env = {}) {
  auto lookup = [](std::string_view n) { return n == "a" ? 0 : n == "b" ? 1 : n == "c" ? 2 : -1; };
  env.resize(3);
  return Expr::compile(text, lookup, "test").eval(env.data());
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const WorkloadError& e) {
    return e.what();
  }
  return "(no error)";
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(Expr, PrecedenceAndParentheses) {
  EXPECT_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(eval("10 - 4 - 3"), 3);  // left to right
  EXPECT_EQ(eval("100 / 10 / 5"), 2);
  EXPECT_EQ(eval("2 * 3 % 4"), 2);  // (2 * 3) % 4, same level in C
  EXPECT_EQ(eval("-2 * -3"), 6);
  EXPECT_EQ(eval("- (1 + 2)"), -3);
  EXPECT_EQ(eval("+5"), 5);
  EXPECT_EQ(eval("(a - 1) / 10", {35}), 3);
  EXPECT_EQ(eval("1000000 * (a + 1) + b % 1000", {1, 12345}), 2000345);
}

TEST(Expr, DivisionAndRemainderTruncateTowardZeroLikeC) {
  EXPECT_EQ(eval("7 / 2"), 3);
  EXPECT_EQ(eval("-7 / 2"), -3);  // not -4 (floor)
  EXPECT_EQ(eval("7 / -2"), -3);
  EXPECT_EQ(eval("-7 % 2"), -1);  // sign of the dividend
  EXPECT_EQ(eval("7 % -2"), 1);
  EXPECT_EQ(eval("-1 - a", {3}), -4);
  EXPECT_EQ(eval("(a * 37 + b * 11) % 100", {5, 1}), 96);
}

TEST(Expr, SixtyFourBitRangeAndOverflowIsAnError) {
  EXPECT_EQ(eval("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(eval("-9223372036854775807 - 1"), INT64_MIN);
  EXPECT_EQ(eval("4294967296 * 2147483647"), INT64_C(9223372032559808512));  // 2^63 - 2^32
  EXPECT_TRUE(has(error_of([] { eval("9223372036854775807 + 1"); }), "overflow"));
  EXPECT_TRUE(has(error_of([] { eval("a * a", {INT64_C(4294967296)}); }), "overflow"));
  EXPECT_TRUE(has(error_of([] { eval("a / -1", {INT64_MIN}); }), "overflow"));
  EXPECT_TRUE(has(error_of([] { eval("-a", {INT64_MIN}); }), "overflow"));
  EXPECT_TRUE(has(error_of([] { eval("9223372036854775808"); }), "out of 64-bit range"));
}

TEST(Expr, DivisionByZeroIsAnErrorWithTheExpression) {
  const std::string e = error_of([] { eval("10 / (a - 3)", {3}); });
  EXPECT_TRUE(has(e, "division by zero")) << e;
  EXPECT_TRUE(has(e, "10 / (a - 3)")) << e;
  EXPECT_TRUE(has(error_of([] { eval("a % 0"); }), "division by zero"));
}

TEST(Expr, SyntaxErrorsAndUnknownVariables) {
  const std::string e = error_of([] { eval("a + nope"); });
  EXPECT_TRUE(has(e, "unknown variable 'nope'")) << e;
  EXPECT_TRUE(has(error_of([] { eval(""); }), "empty expression"));
  EXPECT_TRUE(has(error_of([] { eval("1 +"); }), "ends where a value was expected"));
  EXPECT_TRUE(has(error_of([] { eval("(1 + 2"); }), "missing ')'"));
  EXPECT_TRUE(has(error_of([] { eval("1 2"); }), "unexpected '2'"));
  EXPECT_TRUE(has(error_of([] { eval("1.5"); }), "unexpected '.'"));
  EXPECT_TRUE(has(error_of([] { eval(std::string(100, '(') + "1" + std::string(100, ')')); }), "nested too deeply"));
}

TEST(Expr, ConstantExpressions) {
  auto none = [](std::string_view) { return -1; };
  EXPECT_TRUE(Expr::compile("1 + 2", none, "x").constant());
  EXPECT_FALSE(Expr::compile(
                   "a", [](std::string_view) { return 0; }, "x")
                   .constant());
}

// A workload text with one step; `extra` goes at the top level.
std::string one_step(const std::string& commands, const std::string& expect, const std::string& extra = "") {
  return R"({"format": 1, "name": "t", "db": "x.db", )" + extra + R"("steps": [{"commands": )" + commands +
         R"(, "expect": )" + expect + "}]}";
}

std::string decode_to_json(const Bytes& b);

TEST(Template, ExpandsVariablesStringsRealsAndRepeats) {
  const Workload w = Workload::parse(
      one_step(
          R"([{"method": "In", "args": [{"$str": "t{t}-n{n}"}]}, {"method": "Find", "args": [{"k": {"$": "c * 2"}, "f": {"$gt": {"$": "n"}}}]}])",
          R"({"i": {"$": "id"}, "r": {"$repeat": {"var": "x", "from": "n", "count": 3, "item": [{"$": "x"}, {"$real": "x", "over": 4}, null]}}})"),
      "test");
  std::vector<int64_t> env(static_cast<size_t>(w.slots()));
  ExpandedQuery q;
  w.expand(1, 5, env.data(), q);
  EXPECT_EQ(q.id, (uint64_t{2} << 32) + 5);
  EXPECT_EQ(decode_to_json(q.request), R"({"id":8589934597,"db":"x.db","commands":[{"method":"In","args":["t1-n5"]},)"
                                       R"({"method":"Find","args":[{"k":10,"f":{"$gt":5}}]}]})");
  EXPECT_EQ(decode_to_json(q.expect), R"({"i":8589934597,"r":[[5,1.25,null],[6,1.5,null],[7,1.75,null]]})");
}

TEST(Template, IntegralRealIsStillFloat64) {
  const Workload w = Workload::parse(one_step(R"([])", R"([{"$real": "8", "over": 4}, 2.0, 2])"), "test");
  std::vector<int64_t> env(static_cast<size_t>(w.slots()));
  ExpandedQuery q;
  w.expand(0, 0, env.data(), q);
  // 93 cb <2.0> cb <2.0> 02: both floats as float64, never packed as an integer.
  ASSERT_EQ(q.expect.size(), 1u + 9 + 9 + 1);
  EXPECT_EQ(q.expect[1], 0xcb);
  EXPECT_EQ(q.expect[10], 0xcb);
  EXPECT_EQ(q.expect[19], 0x02);
}

TEST(Template, LetsAndCyclesAndLiteralIds) {
  const Workload w = Workload::parse(
      R"({"format": 1, "name": "t", "db": "x.db", "let": {"a": "c * 10", "b": "a + t"},
          "steps": [{"let": {"d": "b * 2"}, "commands": [{"$": "d"}], "expect": 0},
                    {"id": 7, "commands": [{"$": "b"}], "expect": 0}]})",
      "test");
  std::vector<int64_t> env(static_cast<size_t>(w.slots()));
  ExpandedQuery q;
  w.expand(3, 4, env.data(), q);  // step 0, cycle 2: a = 20, b = 23, d = 46
  EXPECT_EQ(decode_to_json(q.request), R"({"id":17179869188,"db":"x.db","commands":[46]})");
  w.expand(3, 5, env.data(), q);  // step 1, literal id
  EXPECT_EQ(q.id, 7u);
  EXPECT_EQ(decode_to_json(q.request), R"({"id":7,"db":"x.db","commands":[23]})");
  EXPECT_FALSE(w.constant());
}

TEST(Workload, ReferenceFileIsConstantAndTheSeedStudysBytes) {
  const Workload w = Workload::load(Workload::locate(DALSTRESS_WORKLOAD_DIR "/reference.json"));
  ASSERT_TRUE(w.constant());
  std::vector<int64_t> env(static_cast<size_t>(w.slots()));
  ExpandedQuery q;
  w.expand(0, 0, env.data(), q);
  EXPECT_EQ(q.request, dalkit::reference::request());
  EXPECT_EQ(q.expect, dalkit::reference::response());
}

TEST(Workload, ShippedWorkloadsLoad) {
  for (const std::string name : {"rows", "write", "mixed"}) {
    const Workload w = Workload::load(DALSTRESS_WORKLOAD_DIR "/" + name + ".json");
    EXPECT_EQ(w.name(), name);
    EXPECT_FALSE(w.constant());
    EXPECT_EQ(w.seed_queries(), 10);
  }
}

TEST(Workload, RowsExpectsTheSeededRows) {
  const Workload w = Workload::load(DALSTRESS_WORKLOAD_DIR "/rows.json");
  std::vector<int64_t> env(static_cast<size_t>(w.slots()));
  ExpandedQuery q;
  w.expand(0, 1, env.data(), q);  // key = 37: rows 371..380
  const std::string e = decode_to_json(q.expect);
  EXPECT_TRUE(has(e, R"([371,37,"item-371",97,463.75,null])")) << e;
  EXPECT_TRUE(has(e, R"([380,37,"item-380",60,475.0,null])")) << e;
  w.expand_seed(2, env.data(), q);  // third seed batch: ids 201..300
  EXPECT_EQ(decode_to_json(q.expect), R"({"i":4294967298,"ra":100,"li":300})");
}

// {"$backend": ...} picks the run's backend's branch anywhere in the file
// (docs/workloads.md, "Per backend"); db replaces the file's db.
TEST(Workload, BackendPicksItsBranchAndDbIsReplaced) {
  const std::string text =
      one_step(R"([{"$backend": {"sqlite": "s", "postgres": {"$": "n + 1"}}}])",
               R"({"e": {"$backend": {"sqlite": "no such table: data", "postgres": "relation"}}})");
  std::vector<int64_t> env(8);
  ExpandedQuery q;
  const Workload sqlite = Workload::parse(text, "t.json");
  sqlite.expand(0, 4, env.data(), q);
  EXPECT_EQ(decode_to_json(q.expect), R"({"e":"no such table: data"})");
  EXPECT_TRUE(has(decode_to_json(q.request), R"("commands":["s"])")) << decode_to_json(q.request);
  const Workload pg = Workload::parse(text, "t.json", {"postgres", "run_schema"});
  EXPECT_EQ(pg.db(), "run_schema");
  pg.expand(0, 4, env.data(), q);
  EXPECT_EQ(decode_to_json(q.expect), R"({"e":"relation"})");
  EXPECT_TRUE(has(decode_to_json(q.request), R"("db":"run_schema","commands":[5])")) << decode_to_json(q.request);
  // The shipped workloads load for every backend; PostgreSQL has no rowid.
  for (const std::string name : {"reference", "rows", "write", "mixed"}) {
    const Workload w = Workload::load(DALSTRESS_WORKLOAD_DIR "/" + name + ".json", {"postgres", "s"});
    if (w.seed_queries() == 0) continue;
    w.expand_seed(0, env.data(), q);
    EXPECT_TRUE(has(decode_to_json(q.expect), R"("li":0)")) << name;
  }
  for (const auto& [branch, message] : std::vector<std::pair<std::string, std::string>>{
           {R"({"$backend": {"sqlite": 1}})", "$backend.postgres: missing"},
           {R"({"$backend": {"sqlite": 1, "postgres": 2, "mysql": 3}})", "$backend.mysql: unknown backend"},
           {R"({"$backend": {"sqlite": 1, "postgres": 2}, "x": 1})", "takes no other key"},
           {R"({"$backend": [1, 2]})", "expected an object of sqlite, postgres"}}) {
    const std::string e = error_of([&] { Workload::parse(one_step("[" + branch + "]", "0"), "bad.json"); });
    EXPECT_TRUE(has(e, message)) << branch << "\n -> " << e;
  }
  EXPECT_TRUE(has(error_of([&] { Workload::parse(text, "t.json", {"mysql", ""}); }), "unknown backend \"mysql\""));
}

TEST(Workload, BadFilesGiveClearErrors) {
  struct Case {
    std::string text, message;
  };
  const std::vector<Case> cases = {
      {"{", "not valid JSON"},
      {R"({"format": 1, "name": "t", "db": "x"})", "steps: missing"},
      {R"({"format": 2, "name": "t", "db": "x", "steps": []})", "this dalstress reads format 1"},
      {R"({"format": 1, "name": "t", "db": "x", "steps": [], "extra": 1})", "extra: unknown key"},
      {R"({"format": 1, "name": "t", "db": "x", "steps": []})", "steps: empty"},
      {one_step(R"([{"$": "nope + 1"}])", "0"),
       "steps[0].commands[0].$: expression \"nope + 1\": unknown variable 'nope'"},
      {one_step(R"j([{"$": "1 / (t - t)"}])j", "0"), "division by zero"},
      {one_step(R"({"method": "In"})", "0"), "expected an array of commands"},
      {one_step(R"([{"$str": "a {n"}])", "0"), "'{' without '}'"},
      {one_step(R"([{"$real": "1", "over": 0}])", "0"), "non-zero integer"},
      {one_step(R"([{"$repeat": {"var": "x", "count": "0 - 1", "item": 1}}])", "0"), "count"},
      {one_step(R"([{"$repeat": {"var": "t", "count": 1, "item": 1}}])", "0"), "variable 't' is already defined"},
      {one_step(R"([{"$": "1", "x": 2}])", "0"), "unknown key 'x'"},
      {one_step("[]", "0", R"("let": {"a": "b"}, )"), "let.a: expression \"b\": unknown variable 'b'"},
      {one_step("[]", "0",
                R"("seed": [{"repeat": {"var": "k", "count": 1}, "commands": [{"$": "c"}], "expect": 0}], )"),
       "unknown variable 'c'"},
  };
  for (const auto& c : cases) {
    const std::string e = error_of([&] { Workload::parse(c.text, "bad.json"); });
    EXPECT_TRUE(has(e, c.message)) << c.text << "\n -> " << e;
    EXPECT_TRUE(has(e, "workload bad.json: ")) << e;
  }
  EXPECT_TRUE(has(error_of([] { Workload::locate("nosuch"); }), "unknown workload 'nosuch'"));
  EXPECT_TRUE(has(error_of([] { Workload::load("/nonexistent/x.json"); }), "cannot read workload file"));
}

// ------------------------------------------------------------ answer check

Bytes pack(const json& j) {
  Bytes b;
  dalstress::encode_json(j, b);
  return b;
}

TEST(AnswerCheck, SameValueInOtherIntegerAndHeaderWidthsIsEqual) {
  const Bytes expected = pack(json::parse(R"({"i": 200, "r": [[1, -3]]})"));
  // i as int16 (Go's msgp), r as array32 (the DAL's patched rows header), -3 as int8.
  const Bytes got = {0x82, 0xa1, 'i', 0xd1, 0x00, 0xc8, 0xa1, 'r', 0xdd, 0, 0, 0, 1, 0x92, 0x01, 0xd0, 0xfd};
  std::string diff;
  EXPECT_TRUE(dalstress::same_answer(got.data(), got.size(), expected.data(), expected.size(), &diff)) << diff;
}

TEST(AnswerCheck, ReportsTheFirstDifferingPath) {
  const Bytes expected = pack(json::parse(R"({"i": 1, "c": ["id", "name"], "r": [[1, "item-1"], [2, "item-2"]]})"));
  const Bytes got = pack(json::parse(R"({"i": 1, "c": ["id", "name"], "r": [[1, "item-1"], [2, "item-3"]]})"));
  std::string diff;
  EXPECT_FALSE(dalstress::same_answer(got.data(), got.size(), expected.data(), expected.size(), &diff));
  EXPECT_EQ(diff, R"(at .r[1][1]: got "item-3", expected "item-2")");
}

TEST(AnswerCheck, FloatIsNeverAnIntegerAndKeysKeepTheirOrder) {
  std::string diff;
  Bytes e = pack(json::parse(R"([1.5])"));
  Bytes g = pack(json::parse(R"([1])"));
  EXPECT_FALSE(dalstress::same_answer(g.data(), g.size(), e.data(), e.size(), &diff));
  EXPECT_TRUE(has(diff, "at [0]: got 1, expected 1.5 (float64)")) << diff;
  e = pack(json::parse(R"({"ra": 1, "li": 2})"));
  g = pack(json::parse(R"({"li": 2, "ra": 1})"));
  EXPECT_FALSE(dalstress::same_answer(g.data(), g.size(), e.data(), e.size(), &diff));
  EXPECT_TRUE(has(diff, "map entry 0 has key \"li\", expected \"ra\"")) << diff;
}

TEST(AnswerCheck, TruncatedOrTrailingBytesAreWrong) {
  const Bytes e = pack(json::parse(R"({"e": "no such table: data"})"));
  std::string diff;
  Bytes g(e.begin(), e.end() - 3);
  EXPECT_FALSE(dalstress::same_answer(g.data(), g.size(), e.data(), e.size(), &diff));
  EXPECT_TRUE(has(diff, "not valid MessagePack")) << diff;
  g = e;
  g.push_back(0xc0);
  EXPECT_FALSE(dalstress::same_answer(g.data(), g.size(), e.data(), e.size(), &diff));
  EXPECT_TRUE(has(diff, "1 bytes after the answer's value")) << diff;
}

// Decode MessagePack into compact JSON text, for readable expectations.
std::string decode_to_json(const Bytes& b) { return json::from_msgpack(b).dump(); }

}  // namespace
