// numbers_test.cpp -- dalkit::parse_int / parse_double (dal-shim/common),
// the one number parser of dalstress flags, monitor parameters and options.
// The grammar's shared cases (tests/common/number-cases.json) are also run
// against the JS drivers' parseCount (tests/node/number-cases.test.js), so
// both parsers accept the same text.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "numbers.hpp"

using dalkit::IntSyntax;
using dalkit::parse_double;
using dalkit::parse_int;

TEST(ParseInt, WhatUsersTypeToday) {
  EXPECT_EQ(parse_int("100000000"), 100000000);
  EXPECT_EQ(parse_int("1e8"), 100000000);
  EXPECT_EQ(parse_int("1E8"), 100000000);
  EXPECT_EQ(parse_int("1e+8"), 100000000);
  EXPECT_EQ(parse_int("100_000_000"), 100000000);
  EXPECT_EQ(parse_int("1,000,000"), 1000000);
  EXPECT_EQ(parse_int("2.5e6"), 2500000);
  EXPECT_EQ(parse_int("1.0"), 1);
  EXPECT_EQ(parse_int("0"), 0);
  EXPECT_EQ(parse_int("007"), 7);
  EXPECT_EQ(parse_int("-5"), -5);
  EXPECT_EQ(parse_int("+5"), 5);
  EXPECT_EQ(parse_int("150e-1"), 15);
  EXPECT_EQ(parse_int("0e999999999999"), 0);
}

TEST(ParseInt, RefusesNonIntegersAndJunk) {
  for (const char* s : {"",    "+",  "-",   ".",  "e5", "1.5",  "1e-1", "1x",   " 1",      "1 ",  "0x10",  "inf",
                        "nan", "1e", "1e+", "_1", "1_", "1__0", "1,,0", "1_.5", "1.5_0e3", "--1", "1e5.0", "١"})
    EXPECT_EQ(parse_int(s), std::nullopt) << "'" << s << "'";
}

// As dalstress checks a count: parse_int, then the caller's range.
TEST(ParseInt, SharedCasesWithTheJsParser) {
  // Found from this source file: the table sits beside tests/shim in tests/common.
  const auto file = std::filesystem::path(__FILE__).parent_path().parent_path() / "common" / "number-cases.json";
  std::ifstream in(file);
  ASSERT_TRUE(in) << "cannot read " << file;
  const auto doc = nlohmann::json::parse(in);
  size_t n = 0;
  for (const auto& c : doc.at("cases")) {
    const std::string text = c.at("text").get<std::string>();
    const int64_t lo = c.at("lo").get<int64_t>();
    const int64_t hi = c.at("hi").get<int64_t>();
    const std::optional<int64_t> v = parse_int(text);
    const bool in_range = v && *v >= lo && *v <= hi;
    const std::string got = v ? std::to_string(*v) : "no integer";
    if (c.at("value") == "error") {
      EXPECT_FALSE(in_range) << "'" << text << "' in " << lo << ".." << hi << ": got " << got << ", expected an error";
    } else {
      EXPECT_TRUE(in_range && *v == c.at("value").get<int64_t>())
          << "'" << text << "' in " << lo << ".." << hi << ": got " << got << ", expected " << c.at("value");
    }
    ++n;
  }
  EXPECT_GE(n, 50u) << "the table lost its cases";
}

TEST(ParseInt, ExactAtTheInt64Limits) {
  EXPECT_EQ(parse_int("9223372036854775807"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(parse_int("-9223372036854775808"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(parse_int("9223372036854775808"), std::nullopt);
  EXPECT_EQ(parse_int("-9223372036854775809"), std::nullopt);
  EXPECT_EQ(parse_int("9.223372036854775807e18"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(parse_int("1e19"), std::nullopt);
  EXPECT_EQ(parse_int("99999999999999999999999"), std::nullopt);
  // No double rounding: 2^53 + 1 stays odd.
  EXPECT_EQ(parse_int("9007199254740993"), INT64_C(9007199254740993));
  EXPECT_EQ(parse_int("9.007199254740993e15"), INT64_C(9007199254740993));
}

TEST(ParseInt, PlainSyntaxIsGoAtoi) {
  EXPECT_EQ(parse_int("16", IntSyntax::Plain), 16);
  EXPECT_EQ(parse_int("-16", IntSyntax::Plain), -16);
  EXPECT_EQ(parse_int("+16", IntSyntax::Plain), 16);
  EXPECT_EQ(parse_int("0016", IntSyntax::Plain), 16);
  for (const char* s : {"1e3", "1_000", "1,000", "1.0", "", " 16", "16 ", "0x10"})
    EXPECT_EQ(parse_int(s, IntSyntax::Plain), std::nullopt) << "'" << s << "'";
}

TEST(ParseDouble, AcceptsDecimalAndScientific) {
  EXPECT_EQ(parse_double("0.2"), 0.2);
  EXPECT_EQ(parse_double("+0.5"), 0.5);
  EXPECT_EQ(parse_double("-1.5"), -1.5);
  EXPECT_EQ(parse_double(".5"), 0.5);
  EXPECT_EQ(parse_double("4"), 4.0);
  EXPECT_EQ(parse_double("2e6"), 2e6);
  EXPECT_EQ(parse_double("1.5E-3"), 1.5e-3);
}

TEST(ParseDouble, RefusesNonFiniteAndJunk) {
  for (const char* s : {"", "inf", "-inf", "nan", "1e400", "0x1p3", " 1", "1 ", "1,5", "1_000", "1.5.2", "e3", "."})
    EXPECT_EQ(parse_double(s), std::nullopt) << "'" << s << "'";
}
