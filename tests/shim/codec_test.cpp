// codec_test.cpp -- encoder bytes, decoder forms; no DAL needed.
#include <gtest/gtest.h>

#include "dalshim.hpp"
#include "test_util.hpp"

using namespace dalshim;
using shimtest::hex;
using shimtest::unhex;

TEST(Encoder, ReferenceRequestIsExactly87Bytes) {
  Query q;
  q.Id(9).Db("database.sqlite").In("data").Find({{"a", 1}, {"b", {{"$gt", 2}}}});
  auto b = q.bytes();
  EXPECT_EQ(b.size(), 87u);
  EXPECT_EQ(hex(b), shimtest::kReferenceHex);
}

TEST(Encoder, ValuePathMatchesDirectPath) {
  Query q;
  q.Id(9).In("data").Find({{"a", 1}, {"b", {{"$gt", 2}}}});
  Buffer viaValue;
  encode_value(q.to_value(), viaValue);
  EXPECT_EQ(hex(viaValue.data(), viaValue.size()), shimtest::kReferenceHex);
}

TEST(Encoder, CanonicalCommandOrder) {
  Query a, b;
  a.In("t").Find({{"x", 1}}).Fields({"x", "y"}).Sort({{"x", -1}}).Limit(5).Offset(2).Group({"y"});
  b.Offset(2).Limit(5).Group({"y"}).Sort({{"x", -1}}).Fields({"x", "y"}).Find({{"x", 1}}).In("t");
  EXPECT_EQ(a.bytes(), b.bytes());
  auto cmds = a.commands().as_array();
  std::vector<std::string> names;
  for (auto& c : cmds) names.push_back(c.find("method")->as_string());
  EXPECT_EQ(names, (std::vector<std::string>{"In", "Find", "Fields", "Group", "Sort", "Limit", "Offset"}));
}

TEST(Encoder, AllMethodsInCanonicalOrder) {
  Query q;
  q.DoNothing().DoUpdate({"v"}).OnConflict({"k"}).Delete().Set({{"v", 1}}).Insert(Map{{"k", 1}})
      .Offset(1).Limit(1).Sort({{"k", "asc"}}).Group({"k"})
      .Join({{{"$for", "u"}, {"$do", {{"u.id", "t.k"}}}}}).Fields({"*"}).Find({{"k", 1}}).In("t", "t");
  std::vector<std::string> names;
  const Value cmds = q.commands();
  for (auto& c : cmds.as_array()) names.push_back(c.find("method")->as_string());
  EXPECT_EQ(names, (std::vector<std::string>{"In", "Find", "Fields", "Join", "Group", "Sort", "Limit", "Offset",
                                             "Insert", "Set", "Delete", "OnConflict", "DoUpdate", "DoNothing"}));
}

TEST(Encoder, InsertManyAndTx) {
  Query ins;
  ins.In("t").Insert(std::vector<Map>{{{"a", 1}, {"b", "x"}}, {{"a", 2}, {"b", nullptr}}});
  auto args = ins.commands().as_array()[1].find("args")->as_array();
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(args[1].find("b")->is_nil(), true);

  Query tx;
  tx.Id(3).Tx({Query().In("t").Insert(Map{{"a", 1}}), Query().In("t").Set({{"a", 2}}).Find({{"a", 1}})});
  auto v = tx.to_value();
  auto cmds = v.find("commands")->as_array();
  ASSERT_EQ(cmds.size(), 1u);
  EXPECT_EQ(cmds[0].find("method")->as_string(), "Tx");
  auto lists = cmds[0].find("args")->as_array();
  ASSERT_EQ(lists.size(), 2u);
  EXPECT_EQ(lists[1].as_array().size(), 3u);  // In, Find, Set
  // The direct encoder and the Value encoder agree.
  Buffer b;
  encode_value(v, b);
  EXPECT_EQ(hex(b.data(), b.size()), hex(tx.bytes()));
}

TEST(Codec, ValueRoundTrip) {
  Value v = {{"n", nullptr}, {"t", true}, {"f", false}, {"i", -5}, {"big", int64_t{1} << 40},
             {"d", 1.5}, {"s", "héllo"}, {"b", Value::binary("\0\1\2", 3)},
             {"a", Value::array({1, "x", Value::array({})})}, {"m", {{"z", 1}, {"a", 2}}}};
  Buffer b;
  encode_value(v, b);
  auto back = decode_value(b.span());
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(*back, v) << back->to_string() << " vs " << v.to_string();
  // Key order survives.
  EXPECT_EQ(back->find("m")->as_map()[0].first, "z");
}

TEST(Decoder, NoSuchTableResponse) {
  auto bytes = unhex(shimtest::kNoSuchTableHex);
  ASSERT_EQ(bytes.size(), 34u);
  auto r = decode_response(bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), DALSHIM_E_SQL);
  EXPECT_EQ(r.error().message(), "no such table: data");
  EXPECT_EQ(r.error().id(), 9u);
}

TEST(Decoder, ExecAndRowsResponses) {
  Buffer b;
  encode_value(Value{{"i", 7}, {"ra", 2}, {"li", 41}}, b);
  auto e = decode_response(b.span());
  ASSERT_TRUE(e.ok());
  ASSERT_FALSE(e->is_rows());
  EXPECT_EQ(e->exec().id, 7u);
  EXPECT_EQ(e->exec().rows_affected, 2);
  EXPECT_EQ(e->exec().last_insert_id, 41);

  b.clear();
  encode_value(Value{{"i", 8}, {"c", Value::array({"a", "b"})},
                     {"r", Value::array({Value::array({1, "x"}), Value::array({nullptr, 2.5})})}}, b);
  auto r = decode_response(b.span());
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_TRUE(r->is_rows());
  const Rows& rows = r->rows();
  EXPECT_EQ(rows.id, 8u);
  EXPECT_EQ(rows.columns, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows.at(0, "b").as_string(), "x");
  EXPECT_TRUE(rows.at(1, "a").is_nil());
  EXPECT_EQ(rows.at(1, "b").as_double(), 2.5);

  b.clear();
  encode_value(Value{{"i", 8}, {"c", Value::array({"a"})}, {"r", Value::array({})}}, b);
  auto empty = decode_response(b.span());
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->rows().size(), 0u);
}

TEST(Decoder, RejectsGarbage) {
  std::vector<std::vector<uint8_t>> bad = {
      {},                                   // empty
      {0xc1},                               // never-used byte
      {0x84, 0xa1},                         // truncated
      unhex("a3616263"),                    // not a map
      unhex("81a17801"),                   // unknown key
  };
  bad.push_back(unhex(shimtest::kNoSuchTableHex));
  bad.back().push_back(0x00);               // trailing byte
  for (auto& b : bad) {
    auto r = decode_response(b);
    ASSERT_FALSE(r.ok()) << hex(b);
    EXPECT_EQ(r.error().code(), DALSHIM_E_RESPONSE) << hex(b) << ": " << r.error().message();
  }
}

TEST(Result, ValueThrowsError) {
  Result<int> r = Error(DALSHIM_E_ARG, "nope");
  EXPECT_THROW(r.value(), Error);
  try {
    (void)r.value();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), DALSHIM_E_ARG);
  }
}
