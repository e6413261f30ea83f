// kv_options_test.cpp -- dalkit::parse_kv_options (dal-shim/common), the
// one parser of dal_open options and dalmon_start parameters.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kv_options.hpp"

using dalkit::format_kv_options;
using dalkit::KvPair;
using dalkit::parse_kv_options;

namespace {

std::vector<KvPair> ok(const std::string& text) {
  std::vector<KvPair> out;
  std::string err;
  EXPECT_TRUE(parse_kv_options(text, out, err)) << text << ": " << err;
  return out;
}

std::string error_of(const std::string& text) {
  std::vector<KvPair> out{{"kept", "1"}};
  std::string err;
  EXPECT_FALSE(parse_kv_options(text, out, err)) << text;
  EXPECT_EQ(out, (std::vector<KvPair>{{"kept", "1"}})) << "out must be unchanged on failure";
  return err;
}

}  // namespace

TEST(KvOptions, PairsInOrderWithBothSeparators) {
  EXPECT_EQ(ok("plant_leak=shim_malloc;plant_leak_bytes=16"),
            (std::vector<KvPair>{{"plant_leak", "shim_malloc"}, {"plant_leak_bytes", "16"}}));
  EXPECT_EQ(ok("b=2,a=1;c=3"), (std::vector<KvPair>{{"b", "2"}, {"a", "1"}, {"c", "3"}}));
}

TEST(KvOptions, EmptyItemsAreSkipped) {
  EXPECT_TRUE(ok("").empty());
  EXPECT_TRUE(ok(";;,").empty());
  EXPECT_EQ(ok(";a=1;;b=2;"), (std::vector<KvPair>{{"a", "1"}, {"b", "2"}}));
}

TEST(KvOptions, ValuesMayBeEmptyOrHoldInnerSpacesAndEquals) {
  EXPECT_EQ(ok("plant_leak="), (std::vector<KvPair>{{"plant_leak", ""}}));
  EXPECT_EQ(ok("mode=into via direct;x=a=b"), (std::vector<KvPair>{{"mode", "into via direct"}, {"x", "a=b"}}));
}

TEST(KvOptions, RefusesWhitespaceAroundKeysAndValues) {
  EXPECT_EQ(error_of("plant_leak_bytes= 16"), "option 'plant_leak_bytes= 16': whitespace around the value");
  EXPECT_EQ(error_of("a=1 "), "option 'a=1 ': whitespace around the value");
  EXPECT_EQ(error_of("a=1\t"), "option 'a=1\t': whitespace around the value");
  EXPECT_EQ(error_of(" a=1"), "option ' a=1': whitespace in or around the key");
  EXPECT_EQ(error_of("a =1"), "option 'a =1': whitespace in or around the key");
  EXPECT_EQ(error_of("a=1; b=2"), "option ' b=2': whitespace in or around the key");
  EXPECT_EQ(error_of("a=1; "), "option ' ' has no value; expected key=value");
}

TEST(KvOptions, RefusesMissingKeyOrValueAndDuplicates) {
  EXPECT_EQ(error_of("max_readers"), "option 'max_readers' has no value; expected key=value");
  EXPECT_EQ(error_of("=5"), "option '=5' has no key; expected key=value");
  EXPECT_EQ(error_of("a=1;b=2,a=1"), "option 'a' given twice");
}

TEST(KvOptions, FormatRoundTrips) {
  const std::vector<KvPair> pairs{{"a", "1"}, {"mode", "into via direct"}, {"e", ""}};
  EXPECT_EQ(format_kv_options(pairs), "a=1;mode=into via direct;e=");
  EXPECT_EQ(ok(format_kv_options(pairs)), pairs);
  EXPECT_EQ(format_kv_options({}), "");
}
