// The workloads of stress/workloads/*.json (format: docs/workloads.md), as
// queries both benchmark paths run: the request bytes dal_query_into gets,
// the SQL statements the DAL builds from them (docs/protocol.md, "Canonical
// SQL text") with their parameters, for SQLite alone, and the exact answer
// either path must give.
//
// Written by hand, one function per workload, mirroring the JSON files step
// by step: the benchmark must not pay for (or depend on) a template
// interpreter in its loop, and the requests are built before the timed part.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace floorbench {

struct Value {
  enum class Kind { Nil, Int, Real, Text };
  Kind kind = Kind::Nil;
  int64_t i = 0;
  double r = 0;
  std::string s;

  static Value nil() { return {}; }
  static Value integer(int64_t v) { return {Kind::Int, v, 0, {}}; }
  static Value real(double v) { return {Kind::Real, 0, v, {}}; }
  static Value text(std::string v) { return {Kind::Text, 0, 0, std::move(v)}; }
};
using Row = std::vector<Value>;

// One SQL statement of a query as the DAL builds it: an index into
// Workload::sql, and the parameters it binds, in order.
struct Statement {
  int sql = 0;
  std::vector<Value> args;
};

// The answer a query must get (docs/protocol.md, "Responses").
struct Answer {
  enum class Kind { Exec, Rows, Error };
  Kind kind = Kind::Exec;
  int64_t ra = 0, li = 0;            // Exec
  std::string error;                 // Error: SQLite's message
  std::vector<std::string> columns;  // Rows
  std::vector<Row> rows;             // emptied once encoded (Query::digest keeps what the floor checks)
};

// What SQLite alone must read for a rows answer, prepared once so that the
// floor checks each answer with a few compares: the integer and real values
// hashed in order, and the column names and text values concatenated (the
// floor copies them out, as a result encoder would).
struct RowsDigest {
  size_t rows = 0, columns = 0;
  uint64_t numbers = 0;
  std::string text;
};

// Folds one integer or real value (its bits) into a digest of numbers.
inline uint64_t fold(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull; }

struct Query {
  uint64_t id = 0;
  std::vector<uint8_t> request;   // for dal_query_into
  std::vector<uint8_t> response;  // the answer in the DAL's encoding (msgpack_writer.hpp)
  bool tx = false;                // statements run in one BEGIN IMMEDIATE ... COMMIT
  std::vector<Statement> statements;
  Answer answer;
  RowsDigest digest;  // Rows answers only
};

struct Workload {
  std::string name;
  std::string db;                // the DAL's database file; SQLite alone uses "floor-" + db
  std::string schema;            // run before the seed, by SQLite, on both files
  std::vector<std::string> sql;  // every statement's canonical SQL text
  int steps = 1;                 // queries per cycle; runs are whole cycles
  std::vector<Query> (*seed)() = nullptr;
  Query (*query)(int thread, uint64_t n) = nullptr;
};

// The workloads this benchmark knows, by name; nullptr for another name.
const Workload* find_workload(std::string_view name);
std::string workload_names();  // "reference, rows, write, mixed"

}  // namespace floorbench
