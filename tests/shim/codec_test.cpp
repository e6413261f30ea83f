// codec_test.cpp -- encoder bytes, decoder forms; no DAL needed.
#include <gtest/gtest.h>

#include "dal.h"
#include "dalmonitor.h"
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
  Encoder viaValue;
  ASSERT_TRUE(encode_value(q.to_value(), viaValue).ok());
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
  q.DoNothing()
      .DoUpdate({"v"})
      .OnConflict({"k"})
      .Delete()
      .Set({{"v", 1}})
      .Insert(Map{{"k", 1}})
      .Offset(1)
      .Limit(1)
      .Sort({{"k", "asc"}})
      .Group({"k"})
      .Join({{{"$for", "u"}, {"$do", {{"u.id", "t.k"}}}}})
      .Fields({"*"})
      .Find({{"k", 1}})
      .In("t", "t");
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
  Encoder b;
  ASSERT_TRUE(encode_value(v, b).ok());
  EXPECT_EQ(hex(b.data(), b.size()), hex(tx.bytes()));
}

TEST(Codec, ValueRoundTrip) {
  Value v = {{"n", nullptr},
             {"t", true},
             {"f", false},
             {"i", -5},
             {"big", int64_t{1} << 40},
             {"d", 1.5},
             {"s", "héllo"},
             {"b", Value::binary("\0\1\2", 3)},
             {"a", Value::array({1, "x", Value::array({})})},
             {"m", {{"z", 1}, {"a", 2}}}};
  Encoder b;
  ASSERT_TRUE(encode_value(v, b).ok());
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
  Encoder b;
  b.value(Value{{"i", 7}, {"ra", 2}, {"li", 41}});
  auto e = decode_response(b.span());
  ASSERT_TRUE(e.ok());
  ASSERT_FALSE(e->is_rows());
  EXPECT_EQ(e->exec().id, 7u);
  EXPECT_EQ(e->exec().rows_affected, 2);
  EXPECT_EQ(e->exec().last_insert_id, 41);

  b.clear();
  b.value(Value{{"i", 8},
                {"c", Value::array({"a", "b"})},
                {"r", Value::array({Value::array({1, "x"}), Value::array({nullptr, 2.5})})}});
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
  b.value(Value{{"i", 8}, {"c", Value::array({"a"})}, {"r", Value::array({})}});
  auto empty = decode_response(b.span());
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->rows().size(), 0u);
}

TEST(Decoder, RejectsGarbage) {
  std::vector<std::vector<uint8_t>> bad = {
      {},                 // empty
      {0xc1},             // never-used byte
      {0x84, 0xa1},       // truncated
      unhex("a3616263"),  // not a map
      unhex("81a17801"),  // unknown key
  };
  bad.push_back(unhex(shimtest::kNoSuchTableHex));
  bad.back().push_back(0x00);  // trailing byte
  for (auto& b : bad) {
    auto r = decode_response(b);
    ASSERT_FALSE(r.ok()) << hex(b);
    EXPECT_EQ(r.error().code(), DALSHIM_E_RESPONSE) << hex(b) << ": " << r.error().message();
  }
}

// msgpack-c reserves a container's announced size before reading it: these
// few bytes once made the decoder ask for 64 GiB (found by tests/fuzz).  A
// count larger than the bytes left is refused up front, in both decoders.
TEST(Decoder, ContainerCountsBeyondTheInputAreRefusedWithoutAllocating) {
  const std::vector<std::vector<uint8_t>> huge = {
      unhex("dd7fffffff"),        // array32 of 2^31-1 elements, none present
      unhex("df7fffffff"),        // map32 of 2^31-1 entries
      unhex("81a172dd7fffffff"),  // the same array inside a response map
      unhex("dbffffffff61"),      // str32 announcing 4 GiB, one byte present
  };
  for (const auto& b : huge) {
    auto r = decode_response(b);
    ASSERT_FALSE(r.ok()) << hex(b);
    EXPECT_EQ(r.error().code(), DALSHIM_E_RESPONSE) << hex(b) << ": " << r.error().message();
    auto v = decode_value(b);
    ASSERT_FALSE(v.ok()) << hex(b);
    EXPECT_EQ(v.error().code(), DALSHIM_E_RESPONSE) << hex(b) << ": " << v.error().message();
  }
  // The bound is exact: a full array of nils of the announced size decodes.
  std::vector<uint8_t> full = unhex("dc0010");
  full.insert(full.end(), 16, 0xc0);
  auto ok = decode_value(full);
  ASSERT_TRUE(ok.ok()) << ok.error().message();
  EXPECT_EQ(ok.value().as_array().size(), 16u);
}

// A map key that is a map keyed by a map ... : rendering each level's key
// inside the next doubled the text per level (found by tests/fuzz, which
// timed out on a 171-byte input).  Container keys are now summarised, so
// the key text stays short whatever the depth.
TEST(Decoder, NestedMapKeysStayShort) {
  std::vector<uint8_t> b;
  constexpr int kDepth = 40;                           // 2^40 bytes if each level doubled
  for (int i = 0; i < kDepth; ++i) b.push_back(0x81);  // fixmap of 1, whose key is the next map
  b.push_back(0xa1);
  b.push_back('"');                                    // innermost key: a quote, which every level used to escape again
  for (int i = 0; i < kDepth; ++i) b.push_back(0xc0);  // each map's value: nil
  auto v = decode_value(b);
  ASSERT_TRUE(v.ok()) << v.error().message();
  ASSERT_TRUE(v.value().is_map());
  ASSERT_EQ(v.value().as_map().size(), 1u);
  EXPECT_EQ(v.value().as_map()[0].first, "{map of 1}");
  auto r = decode_response(b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), DALSHIM_E_RESPONSE);
  EXPECT_LT(r.error().message().size(), 200u) << r.error().message();
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

TEST(Encoder, SmallestIntegerFormsAndFloat64) {
  Encoder e;
  e.int64(1);
  e.uint64(1);
  e.int64(-1);
  e.int64(200);
  e.uint64(200);
  e.int64(-33);
  e.int64(70000);
  e.uint64(UINT64_MAX);
  e.int64(INT64_MIN);
  e.float64(1.0);
  EXPECT_EQ(hex(e.data(), e.size()),
            "01"
            "01"
            "ff"
            "ccc8"
            "ccc8"
            "d0df"
            "ce00011170"
            "cfffffffffffffffff"
            "d38000000000000000"
            "cb3ff0000000000000");
  e.clear();
  EXPECT_EQ(e.size(), 0u);
  e.nil();
  e.boolean(true);
  e.boolean(false);
  e.str("ab");
  const uint8_t raw[] = {0, 255};
  e.bin(raw);
  e.array_header(2);
  e.map_header(1);
  EXPECT_EQ(hex(e.data(), e.size()),
            "c0"
            "c3"
            "c2"
            "a26162"
            "c40200ff"
            "92"
            "81");
  EXPECT_TRUE(e.ok());
}

TEST(Encoder, ReferenceRequestByHandIs87Bytes) {
  // What the addon does: walk a request straight into the Encoder.
  Encoder e;
  e.map_header(3);
  e.str("id");
  e.uint64(9);
  e.str("db");
  e.str("database.sqlite");
  e.str("commands");
  e.array_header(2);
  e.map_header(2);
  e.str("method");
  e.str("In");
  e.str("args");
  e.array_header(1);
  e.str("data");
  e.map_header(2);
  e.str("method");
  e.str("Find");
  e.str("args");
  e.array_header(1);
  e.map_header(2);
  e.str("a");
  e.int64(1);
  e.str("b");
  e.map_header(1);
  e.str("$gt");
  e.int64(2);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(hex(e.data(), e.size()), shimtest::kReferenceHex);
}

TEST(Encoder, LengthBeyondMessagePackIsStickyFailure) {
  Encoder e;
  e.nil();
  e.array_header(size_t{1} << 32);
  EXPECT_FALSE(e.ok());
  e.nil();  // written nothing after the failure
  EXPECT_EQ(hex(e.data(), e.size()), "c0");
  e.clear();
  EXPECT_TRUE(e.ok());
}

TEST(ResponseView, ReferenceResponseIsSqlErrorWithoutCopies) {
  const auto bytes = unhex(shimtest::kNoSuchTableHex);
  auto v = parse_response(bytes);
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_EQ(v->kind(), ResponseKind::SqlError);
  EXPECT_EQ(v->id(), 9u);
  EXPECT_EQ(v->rows_affected(), 0);
  EXPECT_EQ(v->last_insert_id(), 0);
  EXPECT_EQ(v->error(), "no such table: data");
  EXPECT_EQ(v->sqlite_code(), 0);
  // Zero-copy: the message points into the response bytes.
  EXPECT_GE(reinterpret_cast<const uint8_t*>(v->error().data()), bytes.data());
  EXPECT_LT(reinterpret_cast<const uint8_t*>(v->error().data()), bytes.data() + bytes.size());
}

TEST(ResponseView, RowsAsObjectRangesInACallersZone) {
  Encoder b;
  b.value(Value{{"i", 8},
                {"c", Value::array({"a", "b"})},
                {"r", Value::array({Value::array({1, "x"}), Value::array({nullptr, 2.5})})}});
  msgpack::zone zone;
  auto v = parse_response(b.span(), zone);
  ASSERT_TRUE(v.ok()) << v.error().message();
  EXPECT_EQ(v->kind(), ResponseKind::Rows);
  ASSERT_EQ(v->columns().size(), 2u);
  EXPECT_EQ(ResponseView::name(v->columns()[1]), "b");
  ASSERT_EQ(v->rows().size(), 2u);
  auto cells = ResponseView::cells(v->rows()[0]);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(cells[0].via.u64, 1u);
  EXPECT_EQ(std::string_view(cells[1].via.str.ptr, cells[1].via.str.size), "x");
  EXPECT_EQ(ResponseView::cells(v->rows()[1])[0].type, msgpack::type::NIL);
}

TEST(ResponseView, ExecAndSqliteCode) {
  Encoder b;
  b.value(Value{{"i", 3}, {"ra", 2}, {"li", -4}});
  auto x = parse_response(b.span());
  ASSERT_TRUE(x.ok());
  EXPECT_EQ(x->kind(), ResponseKind::Exec);
  EXPECT_EQ(x->rows_affected(), 2);
  EXPECT_EQ(x->last_insert_id(), -4);

  b.clear();
  b.value(Value{
      {"i", 4}, {"ra", 0}, {"li", 0}, {"e", "UNIQUE constraint failed: kv.k"}, {std::string(kSqliteCodeKey), 2067}});
  auto e = parse_response(b.span());
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->kind(), ResponseKind::SqlError);
  EXPECT_EQ(e->sqlite_code(), 2067);
  auto d = decode_response(b.span());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code(), DALSHIM_E_SQL);
  EXPECT_EQ(d.error().sqlite_code(), 2067);
  EXPECT_EQ(d.error().id(), 4u);
  EXPECT_EQ(d.error().message(), "UNIQUE constraint failed: kv.k");
  EXPECT_EQ(d.error().sqlstate(), "");
}

// PostgreSQL answers "ec" with the SQLSTATE, a string (docs/protocol.md).
TEST(ResponseView, PostgresSqlstate) {
  Encoder b;
  b.value(Value{{"i", 5},
                {"ra", 0},
                {"li", 0},
                {"e", "duplicate key value violates unique constraint \"kv_pkey\""},
                {std::string(kSqliteCodeKey), "23505"}});
  auto e = parse_response(b.span());
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->kind(), ResponseKind::SqlError);
  EXPECT_EQ(e->sqlstate(), "23505");
  EXPECT_EQ(e->sqlite_code(), 0);
  auto d = decode_response(b.span());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code(), DALSHIM_E_SQL);
  EXPECT_EQ(d.error().sqlstate(), "23505");
  EXPECT_EQ(d.error().sqlite_code(), 0);
  EXPECT_EQ(d.error().id(), 5u);
  for (const char* bad : {"2350", "235050", "42p01", "42P0!", ""}) {
    b.clear();
    b.value(Value{{"i", 6}, {"ra", 0}, {"li", 0}, {"e", "x"}, {std::string(kSqliteCodeKey), bad}});
    auto r = parse_response(b.span());
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code(), DALSHIM_E_RESPONSE);
    EXPECT_NE(r.error().message().find("not a SQLSTATE"), std::string::npos) << r.error().message();
  }
}

TEST(ResponseView, RefusesWhatTheProtocolDoesNotAllow) {
  const std::vector<Value> bad = {
      Value{{"i", 1}, {"ra", 0}, {"li", 0}, {"ra", 0}},                                          // duplicate key
      Value{{"i", 1}, {"ra", 0}, {"li", 0}, {std::string(kSqliteCodeKey), 1}},                   // code without e
      Value{{"i", 1}, {"ra", 0}, {"li", 0}, {"e", "x"}, {std::string(kSqliteCodeKey), 1.5}},     // code not int
      Value{{"i", 1}, {"c", Value::array({1})}, {"r", Value::array({})}},                        // column not a str
      Value{{"i", 1}, {"c", Value::array({"a"})}, {"r", Value::array({Value::array({1, 2})})}},  // row width
      Value{{"i", 1}, {"c", Value::array({"a"})}, {"r", Value::array({})}, {"ra", 0}},           // mixed kinds
      Value{{"i", -1}, {"ra", 0}, {"li", 0}},                                                    // negative id
      Value{{"ra", 0}, {"li", 0}},                                                               // no id
  };
  for (const auto& v : bad) {
    Encoder b;
    b.value(v);
    auto r = parse_response(b.span());
    ASSERT_FALSE(r.ok()) << v.to_string();
    EXPECT_EQ(r.error().code(), DALSHIM_E_RESPONSE) << v.to_string();
    // Recorded as the thread's last error, like every failure of the shim.
    EXPECT_EQ(dalshim_last_error_code(), DALSHIM_E_RESPONSE);
    EXPECT_EQ(std::string(dalshim_last_error()), r.error().message());
  }
}

TEST(CodeName, NamesEveryFamily) {
  EXPECT_STREQ(dalshim_code_name(0), "DAL_OK");
  EXPECT_STREQ(dalshim_code_name(DAL_E_HANDLE), "DAL_E_HANDLE");
  EXPECT_STREQ(dalshim_code_name(DALSHIM_E_OPTIONS), "DAL_E_OPTIONS");
  EXPECT_STREQ(dalshim_code_name(DALSHIM_E_DOUBLE_FREE), "DALSHIM_E_DOUBLE_FREE");
  EXPECT_STREQ(dalshim_code_name(DALSHIM_E_LOADED), "DALSHIM_E_LOADED");
  EXPECT_STREQ(dalshim_code_name(DALMON_E_PARAMS), "DALMON_E_PARAMS");
  EXPECT_STREQ(dalshim_code_name(DALMON_E_RUN), "DALMON_E_RUN");
  EXPECT_STREQ(dalshim_code_name(12345), "unknown code");
  EXPECT_STREQ(code_name(DALSHIM_E_SQL), "DALSHIM_E_SQL");
  EXPECT_STREQ(Error(DALSHIM_E_CLOSED, "x").name(), "DALSHIM_E_CLOSED");
}
