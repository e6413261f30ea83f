// roundtrip_test.cpp -- every method and filter through the C++ API and the
// real DAL, on a fresh database in a temp dir (tables created with the
// system SQLite first: the DAL has no DDL).
#include <gtest/gtest.h>

#include <algorithm>

#include "dal.h"
#include "dalshim.hpp"
#include "test_util.hpp"

using namespace dalshim;

namespace {

class RoundTrip : public ::testing::Test {
 protected:
  void SetUp() override {
    REQUIRE_DAL();
    auto lib = Library::load_default(shimtest::dal_path());
    ASSERT_TRUE(lib.ok()) << lib.error().message();
    shimtest::sqlite_exec(
        dir_.file("database.sqlite"),
        "CREATE TABLE data (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, name TEXT, score REAL, blob BLOB);"
        "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);"
        "CREATE TABLE posts (id INTEGER PRIMARY KEY, user_id INTEGER, title TEXT);"
        "CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER, note TEXT);");
    auto db = Database::open(dir_.path());
    ASSERT_TRUE(db.ok()) << db.error().message();
    db_ = std::move(*db);
    auto ins = db_.In("data")
                   .Insert(std::vector<Map>{
                       {{"id", 1},
                        {"a", 1},
                        {"b", 1},
                        {"name", "alpha"},
                        {"score", 1.5},
                        {"blob", Value::binary("\x01\x02", 2)}},
                       {{"id", 2}, {"a", 1}, {"b", 3}, {"name", "beta"}, {"score", 2.5}, {"blob", nullptr}},
                       {{"id", 3}, {"a", 2}, {"b", 5}, {"name", "gamma"}, {"score", nullptr}, {"blob", nullptr}},
                       {{"id", 4}, {"a", 2}, {"b", 7}, {"name", "delta"}, {"score", 4.0}, {"blob", nullptr}},
                       {{"id", 5}, {"a", 3}, {"b", 9}, {"name", nullptr}, {"score", 5.0}, {"blob", nullptr}}})
                   .exec();
    ASSERT_TRUE(ins.ok()) << ins.error().message();
    EXPECT_EQ(ins->rows_affected, 5);
    EXPECT_EQ(ins->last_insert_id, 5);
  }

  // ids of the rows a filter selects, in id order.
  std::vector<int64_t> ids(Map filter) {
    auto r = db_.In("data").Find(std::move(filter)).Fields({"id"}).Sort({{"id", 1}}).rows();
    EXPECT_TRUE(r.ok()) << r.error().message();
    std::vector<int64_t> out;
    if (r.ok())
      for (auto& row : r->rows) out.push_back(row.at(0).as_int());
    return out;
  }

  shimtest::TempDir dir_;
  Database db_;
};

using V = std::vector<int64_t>;

}  // namespace

TEST_F(RoundTrip, SelectAllReadsBackEveryTypeInColumnOrder) {
  auto r = db_.In("data").Sort({{"id", "asc"}}).rows();
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->columns, (std::vector<std::string>{"id", "a", "b", "name", "score", "blob"}));
  ASSERT_EQ(r->size(), 5u);
  EXPECT_EQ(r->at(0, "name").as_string(), "alpha");
  EXPECT_EQ(r->at(0, "score").as_double(), 1.5);
  EXPECT_EQ(r->at(0, "blob").as_binary().bytes, (std::vector<uint8_t>{1, 2}));
  EXPECT_TRUE(r->at(2, "score").is_nil());
  EXPECT_TRUE(r->at(4, "name").is_nil());
  EXPECT_EQ(r->at(4, "b").as_int(), 9);
}

TEST_F(RoundTrip, ReferenceQueryWithTable) {
  auto r = db_.In("data").Id(9).Find({{"a", 1}, {"b", {{"$gt", 2}}}}).rows();
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->id, 9u);
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ(r->at(0, "id").as_int(), 2);
}

TEST_F(RoundTrip, Filters) {
  EXPECT_EQ(ids({{"a", 2}}), (V{3, 4}));
  EXPECT_EQ(ids({{"name", nullptr}}), (V{5}));
  EXPECT_EQ(ids({{"a", {{"$eq", 1}}}}), (V{1, 2}));
  EXPECT_EQ(ids({{"a", {{"$ne", 1}}}}), (V{3, 4, 5}));
  EXPECT_EQ(ids({{"name", {{"$eq", nullptr}}}}), (V{5}));
  EXPECT_EQ(ids({{"name", {{"$ne", nullptr}}}}), (V{1, 2, 3, 4}));
  EXPECT_EQ(ids({{"b", {{"$gt", 5}}}}), (V{4, 5}));
  EXPECT_EQ(ids({{"b", {{"$gte", 5}}}}), (V{3, 4, 5}));
  EXPECT_EQ(ids({{"b", {{"$lt", 5}}}}), (V{1, 2}));
  EXPECT_EQ(ids({{"b", {{"$lte", 5}}}}), (V{1, 2, 3}));
  EXPECT_EQ(ids({{"b", {{"$gt", 1}, {"$lt", 9}}}}), (V{2, 3, 4}));
  EXPECT_EQ(ids({{"id", {{"$in", Value::array({1, 3, 5})}}}}), (V{1, 3, 5}));
  EXPECT_EQ(ids({{"id", {{"$in", Value::array({})}}}}), (V{}));
  EXPECT_EQ(ids({{"id", {{"$nin", Value::array({1, 3, 5})}}}}), (V{2, 4}));
  EXPECT_EQ(ids({{"id", {{"$nin", Value::array({})}}}}), (V{1, 2, 3, 4, 5}));
  EXPECT_EQ(ids({{"name", {{"$like", "%ta"}}}}), (V{2, 4}));
  EXPECT_EQ(ids({{"name", {{"$nlike", "%ta"}}}}), (V{1, 3}));
  EXPECT_EQ(ids({{"name", {{"$glob", "?a*"}}}}), (V{3}));
  EXPECT_EQ(ids({{"b", {{"$between", Value::array({3, 7})}}}}), (V{2, 3, 4}));
  EXPECT_EQ(ids({{"b", {{"$nbetween", Value::array({3, 7})}}}}), (V{1, 5}));
  EXPECT_EQ(ids({{"$or", Value::array({Value{{"a", 3}}, Value{{"b", 1}}})}}), (V{1, 5}));
  EXPECT_EQ(ids({{"$and", Value::array({Value{{"a", 2}}, Value{{"b", {{"$gt", 5}}}}})}}), (V{4}));
  EXPECT_EQ(ids({{"$not", {{"a", 1}}}}), (V{3, 4, 5}));
  EXPECT_EQ(ids({{"score", 2.5}}), (V{2}));
  EXPECT_EQ(ids({{"blob", Value::binary("\x01\x02", 2)}}), (V{1}));
  EXPECT_EQ(ids({{"a", true}}), (V{1, 2}));  // booleans bind as 0/1
}

TEST_F(RoundTrip, FieldsSortLimitOffsetGroup) {
  auto r = db_.In("data").Fields({"name", "b"}).Sort({{"b", -1}}).Limit(2).Offset(1).rows();
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->columns, (std::vector<std::string>{"name", "b"}));
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ(r->at(0, "b").as_int(), 7);
  EXPECT_EQ(r->at(1, "b").as_int(), 5);

  auto off = db_.In("data").Fields({"id"}).Sort({{"id", "desc"}}).Offset(3).rows();  // LIMIT -1
  ASSERT_TRUE(off.ok()) << off.error().message();
  ASSERT_EQ(off->size(), 2u);
  EXPECT_EQ(off->rows[0][0].as_int(), 2);

  auto g = db_.In("data")
               .Fields({"a", "count(*) as n", "sum(b) AS total", "max(b) as hi"})
               .Group({"a"})
               .Sort({{"a", 1}})
               .rows();
  ASSERT_TRUE(g.ok()) << g.error().message();
  EXPECT_EQ(g->columns, (std::vector<std::string>{"a", "n", "total", "hi"}));
  ASSERT_EQ(g->size(), 3u);
  EXPECT_EQ(g->at(1, "n").as_int(), 2);
  EXPECT_EQ(g->at(1, "total").as_int(), 12);
  EXPECT_EQ(g->at(2, "hi").as_int(), 9);

  auto empty = db_.In("data").Find({{"a", 99}}).rows();
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->size(), 0u);
  EXPECT_EQ(empty->columns.size(), 6u);
}

TEST_F(RoundTrip, Join) {
  ASSERT_TRUE(
      db_.In("users").Insert(std::vector<Map>{{{"id", 1}, {"name", "ann"}}, {{"id", 2}, {"name", "bob"}}}).exec().ok());
  ASSERT_TRUE(db_.In("posts")
                  .Insert(std::vector<Map>{{{"id", 10}, {"user_id", 1}, {"title", "p1"}},
                                           {{"id", 11}, {"user_id", 1}, {"title", "p2"}}})
                  .exec()
                  .ok());
  auto inner = db_.In("users", "u")
                   .Join({{{"$for", "posts p"}, {"$do", {{"u.id", "p.user_id"}}}}})
                   .Fields({"u.name", "p.title"})
                   .Sort({{"p.id", 1}})
                   .rows();
  ASSERT_TRUE(inner.ok()) << inner.error().message();
  ASSERT_EQ(inner->size(), 2u);
  EXPECT_EQ(inner->rows[0][0].as_string(), "ann");
  EXPECT_EQ(inner->rows[1][1].as_string(), "p2");

  auto left = db_.In("users", "u")
                  .Join({{{"$for", "posts p"}, {"$do", {{"u.id", "p.user_id"}}}, {"$as", "left"}}})
                  .Fields({"u.name", "count(p.id) as n"})
                  .Group({"u.name"})
                  .Sort({{"u.name", 1}})
                  .rows();
  ASSERT_TRUE(left.ok()) << left.error().message();
  ASSERT_EQ(left->size(), 2u);
  EXPECT_EQ(left->at(1, "n").as_int(), 0);  // bob has no posts

  auto text = db_.In("users", "u")
                  .Join({{{"$for", "posts p"}, {"$do", {{"u.id", "p.user_id"}, {"p.title", {{"$eq", "p2"}}}}}}})
                  .Fields({"p.id"})
                  .rows();
  ASSERT_TRUE(text.ok()) << text.error().message();
  ASSERT_EQ(text->size(), 1u);
  EXPECT_EQ(text->rows[0][0].as_int(), 11);
}

TEST_F(RoundTrip, SetAndDelete) {
  auto u = db_.In("data").Set({{"name", "B"}, {"score", 9.5}}).Find({{"a", 1}}).exec();
  ASSERT_TRUE(u.ok()) << u.error().message();
  EXPECT_EQ(u->rows_affected, 2);
  EXPECT_EQ(ids({{"name", "B"}, {"score", 9.5}}), (V{1, 2}));

  auto d = db_.In("data").Delete().Find({{"b", {{"$gte", 7}}}}).exec();
  ASSERT_TRUE(d.ok()) << d.error().message();
  EXPECT_EQ(d->rows_affected, 2);
  EXPECT_EQ(ids({}), (V{1, 2, 3}));
}

TEST_F(RoundTrip, UpsertDoUpdateAndDoNothing) {
  ASSERT_TRUE(db_.In("kv").Insert(Map{{"k", "x"}, {"v", 1}, {"note", "first"}}).exec().ok());
  auto dup = db_.In("kv").Insert(Map{{"k", "x"}, {"v", 2}, {"note", "second"}}).exec();
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().code(), DALSHIM_E_SQL);  // UNIQUE constraint, carried in "e"
  EXPECT_NE(dup.error().message().find("UNIQUE"), std::string::npos) << dup.error().message();
  EXPECT_EQ(dup.error().sqlite_code(), 0);  // not asked for
  auto coded = db_.In("kv").Insert(Map{{"k", "x"}, {"v", 2}}).Codes().exec();
  ASSERT_FALSE(coded.ok());
  EXPECT_EQ(coded.error().code(), DALSHIM_E_SQL);
  EXPECT_EQ(coded.error().sqlite_code(), 1555);  // SQLITE_CONSTRAINT_PRIMARYKEY: kv.k is the PRIMARY KEY

  auto nothing = db_.In("kv").Insert(Map{{"k", "x"}, {"v", 3}, {"note", "third"}}).OnConflict({"k"}).DoNothing().exec();
  ASSERT_TRUE(nothing.ok()) << nothing.error().message();
  EXPECT_EQ(nothing->rows_affected, 0);

  auto upd =
      db_.In("kv").Insert(Map{{"k", "x"}, {"v", 4}, {"note", "fourth"}}).OnConflict({"k"}).DoUpdate({"v"}).exec();
  ASSERT_TRUE(upd.ok()) << upd.error().message();
  EXPECT_EQ(upd->rows_affected, 1);
  auto r = db_.In("kv").Find({{"k", "x"}}).rows();
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ(r->at(0, "v").as_int(), 4);
  EXPECT_EQ(r->at(0, "note").as_string(), "first");  // only v was updated
}

TEST_F(RoundTrip, TxCommitsAllOrNothing) {
  auto ok =
      db_.Tx({Query().In("kv").Insert(Map{{"k", "a"}, {"v", 1}}), Query().In("kv").Insert(Map{{"k", "b"}, {"v", 2}}),
              Query().In("data").Set({{"b", 100}}).Find({{"id", 1}})})
          .exec();
  ASSERT_TRUE(ok.ok()) << ok.error().message();
  EXPECT_EQ(ok->rows_affected, 3);
  EXPECT_EQ(ids({{"b", 100}}), (V{1}));

  auto bad = db_.Tx({Query().In("kv").Insert(Map{{"k", "c"}, {"v", 3}}),
                     Query().In("kv").Insert(Map{{"k", "a"}, {"v", 9}})})  // duplicate key: rolls back
                 .exec();
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), DALSHIM_E_SQL);
  auto r = db_.In("kv").Fields({"k"}).Sort({{"k", 1}}).rows();
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 2u);  // "c" was rolled back
  EXPECT_EQ(r->rows[1][0].as_string(), "b");
}

TEST_F(RoundTrip, InvalidRequestsAreCallFailures) {
  auto r = db_.In("data").Find({{"a", {{"$regex", "x"}}}}).rows();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), DAL_E_REQUEST);
  EXPECT_NE(r.error().message().find("$regex"), std::string::npos) << r.error().message();
  auto bad_ident = db_.In("data; DROP TABLE data").rows();
  ASSERT_FALSE(bad_ident.ok());
  EXPECT_EQ(bad_ident.error().code(), DAL_E_REQUEST);
  auto missing = db_.In("nope").rows();
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), DALSHIM_E_SQL);
  EXPECT_EQ(missing.error().message(), "no such table: nope");
}

TEST_F(RoundTrip, RawModesAgree) {
  auto req = db_.In("data").Id(77).Find({{"a", 2}}).bytes();
  auto a = db_.query(req);  // mode (a): shim-owned registered buffer, released on scope exit
  ASSERT_TRUE(a.ok()) << a.error().message();
  EXPECT_EQ(dalshim_stat(0, DALSHIM_STAT_BUFFERS_LIVE), 1);
  dalshim::Bytes got;
  auto nb = db_.query_to(req, got);
  ASSERT_TRUE(nb.ok());
  EXPECT_EQ(*nb, got.size());
  const std::vector<uint8_t> b(got.begin(), got.end());
  EXPECT_EQ(std::vector<uint8_t>(a->data(), a->data() + a->size()), b);
  std::vector<uint8_t> tiny(4);
  auto n = db_.query_into(req, tiny);
  ASSERT_TRUE(n.ok());
  ASSERT_EQ(static_cast<size_t>(*n), b.size());
  std::vector<uint8_t> full(b.size());
  auto m = db_.take_pending(full);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(full, b);
  a->reset();
  EXPECT_EQ(dalshim_stat(0, DALSHIM_STAT_BUFFERS_LIVE), 0);
  auto dec = decode_response(b);
  ASSERT_TRUE(dec.ok());
  EXPECT_EQ(dec->id(), 77u);
  EXPECT_EQ(dec->rows().size(), 2u);
}

TEST_F(RoundTrip, DoublesStayReal) {
  // 2.0 is a double in C++: it must reach SQLite as REAL, not INTEGER
  // (column "blob" has BLOB affinity: SQLite stores what it is given).
  ASSERT_TRUE(db_.In("data").Insert(Map{{"id", 6}, {"blob", 2.0}}).exec().ok());
  auto r = db_.In("data").Fields({"blob"}).Find({{"id", 6}}).rows();
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_TRUE(r->rows[0][0].is_double()) << r->rows[0][0].to_string();
}

TEST_F(RoundTrip, DatabaseIsMovableAndClosesOnce) {
  Database other = std::move(db_);
  EXPECT_FALSE(db_.is_open());
  EXPECT_TRUE(other.is_open());
  int64_t h = other.handle();
  EXPECT_TRUE(other.close().ok());
  EXPECT_TRUE(other.close().ok());  // idempotent
  // The raw handle is now closed: the C ABI says so precisely.
  uint8_t buf[8];
  EXPECT_EQ(dalshim_query_into(h, buf, 1, buf, sizeof buf), DALSHIM_E_CLOSED);
}
