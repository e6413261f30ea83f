#include "workload.hpp"

#include <cstring>

#include "msgpack_writer.hpp"

namespace floorbench {
namespace {

// ---- building requests and answers -------------------------------------

MsgpackWriter& put(MsgpackWriter& w, const Value& v) {
  switch (v.kind) {
    case Value::Kind::Nil: return w.nil();
    case Value::Kind::Int: return w.integer(v.i);
    case Value::Kind::Real: return w.real(v.r);
    case Value::Kind::Text: return w.str(v.s);
  }
  return w;
}

// {method: <method>, args: [<nargs values follow>]}
MsgpackWriter& command(MsgpackWriter& w, std::string_view method, uint32_t nargs) {
  return w.map(2).str("method").str(method).str("args").array(nargs);
}

// {name: value, ...} in the order given: a filter, a Set or an Insert row.
MsgpackWriter& object(MsgpackWriter& w, const std::vector<std::string_view>& names, const std::vector<Value>& values) {
  w.map(static_cast<uint32_t>(names.size()));
  for (size_t i = 0; i < names.size(); ++i) put(w.str(names[i]), values[i]);
  return w;
}

// The envelope {id, db, commands: [<ncommands follow>]}, keys in that order
// (docs/workloads.md, "Steps").
MsgpackWriter envelope(uint64_t id, const std::string& db, uint32_t ncommands) {
  MsgpackWriter w;
  w.map(3).str("id").uint(id).str("db").str(db).str("commands").array(ncommands);
  return w;
}

// Encodes q.answer as the DAL would, and what SQLite alone must read for it.
void finish(Query& q, MsgpackWriter&& request) {
  q.request = std::move(request.bytes());
  const Answer& a = q.answer;
  MsgpackWriter w;
  if (a.kind == Answer::Kind::Rows) {
    w.map(3).str("i").uint(q.id).str("c").array(static_cast<uint32_t>(a.columns.size()));
    for (const auto& c : a.columns) {
      w.str(c);
      q.digest.text += c;
    }
    w.str("r").array32(static_cast<uint32_t>(a.rows.size()));
    for (const auto& row : a.rows) {
      w.array(static_cast<uint32_t>(row.size()));
      for (const auto& v : row) {
        put(w, v);
        if (v.kind == Value::Kind::Int) q.digest.numbers = fold(q.digest.numbers, static_cast<uint64_t>(v.i));
        if (v.kind == Value::Kind::Real) {
          uint64_t bits;
          std::memcpy(&bits, &v.r, sizeof bits);
          q.digest.numbers = fold(q.digest.numbers, bits);
        }
        if (v.kind == Value::Kind::Text) q.digest.text += v.s;
      }
    }
    // A batch holds tens of thousands of queries: keep the digest, not the rows.
    q.digest.rows = a.rows.size();
    q.digest.columns = a.columns.size();
    q.answer.rows = {};
  } else {
    w.map(a.kind == Answer::Kind::Error ? 4 : 3).str("i").uint(q.id).str("ra").integer(a.ra).str("li").integer(a.li);
    if (a.kind == Answer::Kind::Error) w.str("e").str(a.error);
  }
  q.response = std::move(w.bytes());
}

Answer exec(int64_t ra, int64_t li) { return {Answer::Kind::Exec, ra, li, {}, {}, {}}; }
Answer error(std::string msg) { return {Answer::Kind::Error, 0, 0, std::move(msg), {}, {}}; }
Answer rows(std::vector<std::string> columns, std::vector<Row> r) {
  return {Answer::Kind::Rows, 0, 0, {}, std::move(columns), std::move(r)};
}

Value I(int64_t v) { return Value::integer(v); }
Value T(std::string s) { return Value::text(std::move(s)); }

// Request ids: (t + 1) * 2^32 + n, unique across threads (docs/workloads.md).
uint64_t query_id(int t, uint64_t n) { return (static_cast<uint64_t>(t) + 1) << 32 | n; }

// ---- the items table (rows.json, mixed.json) -----------------------------

constexpr const char* kItemsSchema =
    "DROP TABLE IF EXISTS items; CREATE TABLE items (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, name TEXT NOT NULL, "
    "qty INTEGER NOT NULL, price REAL NOT NULL, note TEXT); CREATE INDEX items_k ON items (k);";
const std::vector<std::string_view> kItemColumns = {"id", "k", "name", "qty", "price", "note"};

// Seed row x (1..1000): {id: x, k: (x-1)/10, name: "item-x", qty: x*7%100, price: x*5/4, note: null}.
Row item(int64_t x) {
  return {I(x),
          I((x - 1) / 10),
          T("item-" + std::to_string(x)),
          I(x * 7 % 100),
          Value::real(static_cast<double>(x * 5) / 4),
          Value::nil()};
}

std::vector<std::string> names(const std::vector<std::string_view>& v) { return {v.begin(), v.end()}; }

// SQL of an INSERT of `rows` rows into table (the builder's text).
std::string insert_sql(const char* table, const std::vector<std::string_view>& columns, int rows) {
  std::string sql = std::string("INSERT INTO \"") + table + "\" (";
  std::string values = "(";
  for (size_t i = 0; i < columns.size(); ++i) {
    sql += (i ? ", \"" : "\"") + std::string(columns[i]) + "\"";
    values += i ? ", ?" : "?";
  }
  values += ")";
  sql += ") VALUES ";
  for (int r = 0; r < rows; ++r) sql += (r ? ", " : "") + values;
  return sql;
}

// A seed of 10 Inserts of 100 rows each, rows 1..1000 (SQL index 0, the
// 100-row INSERT): every workload that has a table seeds it this way.
std::vector<Query> seed_rows(const std::string& db, const char* table, const std::vector<std::string_view>& columns,
                             Row (*row)(int64_t)) {
  std::vector<Query> out;
  for (int64_t b = 0; b < 10; ++b) {
    Query q;
    q.id = query_id(0, static_cast<uint64_t>(b));
    auto w = envelope(q.id, db, 2);
    command(w, "In", 1).str(table);
    command(w, "Insert", 100);
    Statement s{0, {}};
    for (int64_t x = b * 100 + 1; x <= b * 100 + 100; ++x) {
      Row r = row(x);
      object(w, columns, r);
      s.args.insert(s.args.end(), r.begin(), r.end());
    }
    q.statements.push_back(std::move(s));
    q.answer = exec(100, b * 100 + 100);
    finish(q, std::move(w));
    out.push_back(std::move(q));
  }
  return out;
}

// Find {k: key} Sort {id: 1} on items: rows key*10+1 .. key*10+10.
Query items_by_k(uint64_t id, const std::string& db, int64_t key, int sql) {
  Query q;
  q.id = id;
  auto w = envelope(id, db, 3);
  command(w, "In", 1).str("items");
  object(command(w, "Find", 1), {"k"}, {I(key)});
  object(command(w, "Sort", 1), {"id"}, {I(1)});
  q.statements = {{sql, {I(key)}}};
  std::vector<Row> r;
  for (int64_t x = key * 10 + 1; x <= key * 10 + 10; ++x) r.push_back(item(x));
  q.answer = rows(names(kItemColumns), std::move(r));
  finish(q, std::move(w));
  return q;
}

// ---- reference.json --------------------------------------------------------

const Workload& reference() {
  static const Workload w{"reference",
                          "database.sqlite",
                          "",
                          {"SELECT * FROM \"data\" WHERE \"a\" = ? AND \"b\" > ?"},
                          1,
                          [] { return std::vector<Query>{}; },
                          [](int, uint64_t) {
                            Query q;
                            q.id = 9;  // every request is the same bytes
                            auto w = envelope(q.id, "database.sqlite", 2);
                            command(w, "In", 1).str("data");
                            command(w, "Find", 1).map(2).str("a").integer(1).str("b").map(1).str("$gt").integer(2);
                            q.statements = {{0, {I(1), I(2)}}};
                            q.answer = error("no such table: data");
                            finish(q, std::move(w));
                            return q;
                          }};
  return w;
}

// ---- rows.json -----------------------------------------------------------

const Workload& rows_workload() {
  static const Workload w{
      "rows",
      "workload-rows.sqlite",
      kItemsSchema,
      {insert_sql("items", kItemColumns, 100), "SELECT * FROM \"items\" WHERE \"k\" = ? ORDER BY \"id\" ASC"},
      1,
      [] { return seed_rows("workload-rows.sqlite", "items", kItemColumns, item); },
      [](int t, uint64_t n) {
        const auto key = static_cast<int64_t>((n * 37 + static_cast<uint64_t>(t) * 11) % 100);
        return items_by_k(query_id(t, n), "workload-rows.sqlite", key, 1);
      }};
  return w;
}

// ---- write.json ----------------------------------------------------------

const std::vector<std::string_view> kLedgerColumns = {"id", "owner", "name", "qty"};
enum LedgerSql {
  kLedgerSeed,
  kLedgerInsert,
  kLedgerSet2,
  kLedgerByOwner,
  kLedgerDelete,
  kLedgerSet1,
  kLedgerDeleteOwner
};

Query write_step(int t, uint64_t n) {
  const std::string db = "workload-write.sqlite";
  const auto c = static_cast<int64_t>(n / 5);
  const int64_t rid = 1000000 * (t + 1) + c % 1000;
  const std::string r = std::to_string(rid);
  Query q;
  q.id = query_id(t, n);
  MsgpackWriter w;
  switch (n % 5) {
    case 0: {  // Insert the thread's row
      w = envelope(q.id, db, 2);
      command(w, "In", 1).str("ledger");
      Row row = {I(rid), I(t), T("row-" + r), I(c)};
      object(command(w, "Insert", 1), kLedgerColumns, row);
      q.statements = {{kLedgerInsert, row}};
      q.answer = exec(1, rid);
      break;
    }
    case 1: {  // Set two columns of it
      w = envelope(q.id, db, 3);
      command(w, "In", 1).str("ledger");
      object(command(w, "Set", 1), {"qty", "name"}, {I(c + 1), T("set-" + r)});
      object(command(w, "Find", 1), {"id"}, {I(rid)});
      q.statements = {{kLedgerSet2, {I(c + 1), T("set-" + r), I(rid)}}};
      q.answer = exec(1, 0);
      break;
    }
    case 2: {  // Find it by owner: checks the Set
      w = envelope(q.id, db, 2);
      command(w, "In", 1).str("ledger");
      object(command(w, "Find", 1), {"owner"}, {I(t)});
      q.statements = {{kLedgerByOwner, {I(t)}}};
      q.answer = rows(names(kLedgerColumns), {{I(rid), I(t), T("set-" + r), I(c + 1)}});
      break;
    }
    case 3: {  // Delete it
      w = envelope(q.id, db, 3);
      command(w, "In", 1).str("ledger");
      command(w, "Delete", 0);
      object(command(w, "Find", 1), {"id"}, {I(rid)});
      q.statements = {{kLedgerDelete, {I(rid)}}};
      q.answer = exec(1, 0);
      break;
    }
    default: {  // the same three writes in one Tx
      w = envelope(q.id, db, 1);
      command(w, "Tx", 3);
      w.array(2);
      command(w, "In", 1).str("ledger");
      Row row = {I(rid), I(t), T("tx-" + r), I(c)};
      object(command(w, "Insert", 1), kLedgerColumns, row);
      w.array(3);
      command(w, "In", 1).str("ledger");
      object(command(w, "Set", 1), {"qty"}, {I(c + 2)});
      object(command(w, "Find", 1), {"id"}, {I(rid)});
      w.array(3);
      command(w, "In", 1).str("ledger");
      command(w, "Delete", 0);
      object(command(w, "Find", 1), {"owner"}, {I(t)});
      q.tx = true;
      q.statements = {{kLedgerInsert, row}, {kLedgerSet1, {I(c + 2), I(rid)}}, {kLedgerDeleteOwner, {I(t)}}};
      q.answer = exec(3, rid);
      break;
    }
  }
  finish(q, std::move(w));
  return q;
}

// Seed row x of write.json: {id: x, owner: -1, name: "seed-x", qty: x % 13}.
Row ledger_seed(int64_t x) { return {I(x), I(-1), T("seed-" + std::to_string(x)), I(x % 13)}; }

const Workload& write_workload() {
  static const Workload w{
      "write",
      "workload-write.sqlite",
      "DROP TABLE IF EXISTS ledger; CREATE TABLE ledger (id INTEGER PRIMARY KEY, owner INTEGER NOT NULL, name TEXT NOT "
      "NULL, "
      "qty INTEGER NOT NULL); CREATE INDEX ledger_owner ON ledger (owner);",
      {insert_sql("ledger", kLedgerColumns, 100), insert_sql("ledger", kLedgerColumns, 1),
       "UPDATE \"ledger\" SET \"qty\" = ?, \"name\" = ? WHERE \"id\" = ?",
       "SELECT * FROM \"ledger\" WHERE \"owner\" = ?", "DELETE FROM \"ledger\" WHERE \"id\" = ?",
       "UPDATE \"ledger\" SET \"qty\" = ? WHERE \"id\" = ?", "DELETE FROM \"ledger\" WHERE \"owner\" = ?"},
      5,
      [] { return seed_rows("workload-write.sqlite", "ledger", kLedgerColumns, ledger_seed); },
      write_step};
  return w;
}

// ---- mixed.json ----------------------------------------------------------

enum MixedSql {
  kMixedSeed,
  kMixedByK,
  kMixedInsert,
  kMixedData,
  kMixedNope,
  kMixedSetQty,
  kMixedByKUnsorted,
  kMixedDelete
};

Query mixed_step(int t, uint64_t n) {
  const std::string db = "workload-mixed.sqlite";
  const auto c = static_cast<int64_t>(n / 8);
  const int64_t key = (c * 37 + t * 11) % 100;
  const int64_t rid = 1000000 * (t + 1) + c % 1000;
  const uint64_t id = query_id(t, n);
  const Row own = {I(rid), I(-1 - t),        T("mixed-" + std::to_string(rid)),
                   I(c),   Value::real(0.5), T("thread " + std::to_string(t))};
  if (n % 8 == 0) return items_by_k(id, db, key, kMixedByK);
  Query q;
  q.id = id;
  MsgpackWriter w;
  switch (n % 8) {
    case 1:  // Insert the thread's row
      w = envelope(id, db, 2);
      command(w, "In", 1).str("items");
      object(command(w, "Insert", 1), kItemColumns, own);
      q.statements = {{kMixedInsert, own}};
      q.answer = exec(1, rid);
      break;
    case 2:  // a missing table: the reference request's commands
      w = envelope(id, db, 2);
      command(w, "In", 1).str("data");
      command(w, "Find", 1).map(2).str("a").integer(1).str("b").map(1).str("$gt").integer(2);
      q.statements = {{kMixedData, {I(1), I(2)}}};
      q.answer = error("no such table: data");
      break;
    case 3:  // an unknown column
      w = envelope(id, db, 2);
      command(w, "In", 1).str("items");
      object(command(w, "Find", 1), {"nope"}, {I(key)});
      q.statements = {{kMixedNope, {I(key)}}};
      q.answer = error("no such column: nope");
      break;
    case 4:  // Set the thread's row
      w = envelope(id, db, 3);
      command(w, "In", 1).str("items");
      object(command(w, "Set", 1), {"qty"}, {I(c + 1)});
      object(command(w, "Find", 1), {"id"}, {I(rid)});
      q.statements = {{kMixedSetQty, {I(c + 1), I(rid)}}};
      q.answer = exec(1, 0);
      break;
    case 5: {  // a Tx rolled back by a UNIQUE violation
      w = envelope(id, db, 1);
      command(w, "Tx", 2);
      w.array(3);
      command(w, "In", 1).str("items");
      object(command(w, "Set", 1), {"qty"}, {I(-1)});
      object(command(w, "Find", 1), {"id"}, {I(rid)});
      w.array(2);
      command(w, "In", 1).str("items");
      Row dup = {I(rid), I(0), T("duplicate"), I(0), Value::real(0.25), Value::nil()};
      object(command(w, "Insert", 1), kItemColumns, dup);
      q.tx = true;
      q.statements = {{kMixedSetQty, {I(-1), I(rid)}}, {kMixedInsert, dup}};
      q.answer = error("UNIQUE constraint failed: items.id");
      break;
    }
    case 6: {  // Find the thread's row: the Tx left nothing
      w = envelope(id, db, 2);
      command(w, "In", 1).str("items");
      object(command(w, "Find", 1), {"k"}, {I(-1 - t)});
      q.statements = {{kMixedByKUnsorted, {I(-1 - t)}}};
      Row r = own;
      r[3] = I(c + 1);
      q.answer = rows(names(kItemColumns), {r});
      break;
    }
    default:  // Delete it
      w = envelope(id, db, 3);
      command(w, "In", 1).str("items");
      command(w, "Delete", 0);
      object(command(w, "Find", 1), {"id"}, {I(rid)});
      q.statements = {{kMixedDelete, {I(rid)}}};
      q.answer = exec(1, 0);
      break;
  }
  finish(q, std::move(w));
  return q;
}

const Workload& mixed_workload() {
  static const Workload w{
      "mixed",
      "workload-mixed.sqlite",
      kItemsSchema,
      {insert_sql("items", kItemColumns, 100), "SELECT * FROM \"items\" WHERE \"k\" = ? ORDER BY \"id\" ASC",
       insert_sql("items", kItemColumns, 1), "SELECT * FROM \"data\" WHERE \"a\" = ? AND \"b\" > ?",
       "SELECT * FROM \"items\" WHERE \"nope\" = ?", "UPDATE \"items\" SET \"qty\" = ? WHERE \"id\" = ?",
       "SELECT * FROM \"items\" WHERE \"k\" = ?", "DELETE FROM \"items\" WHERE \"id\" = ?"},
      8,
      [] { return seed_rows("workload-mixed.sqlite", "items", kItemColumns, item); },
      mixed_step};
  return w;
}

}  // namespace

const Workload* find_workload(std::string_view name) {
  for (const Workload* w : {&reference(), &rows_workload(), &write_workload(), &mixed_workload()})
    if (w->name == name) return w;
  return nullptr;
}

std::string workload_names() { return "reference, rows, write, mixed"; }

}  // namespace floorbench
