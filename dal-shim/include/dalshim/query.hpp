// dalshim/query.hpp -- the query builder, mirroring the JS one:
//
//   db.In("data").Find({{"a", 1}, {"b", {{"$gt", 2}}}}).Sort({{"a", -1}}).Limit(10)
//
// Each method may be called once per query (a second call replaces the
// first).  Commands are emitted in the canonical order In, Find, Fields,
// Join, Group, Sort, Limit, Offset, Insert, Set, Delete, OnConflict,
// DoUpdate, DoNothing, whatever the call order, so equal queries encode to
// equal bytes.  A Tx query (Database::Tx / Query::Tx) contains only Tx.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dalshim/codec.hpp"
#include "dalshim/error.hpp"
#include "dalshim/value.hpp"

namespace dalshim {

class Database;
class Response;
struct Rows;
struct ExecResult;

class Query {
 public:
  enum Method : int {
    kIn,
    kFind,
    kFields,
    kJoin,
    kGroup,
    kSort,
    kLimit,
    kOffset,
    kInsert,
    kSet,
    kDelete,
    kOnConflict,
    kDoUpdate,
    kDoNothing,
    kMethodCount
  };
  static const char* method_name(Method m) noexcept;

  Query() = default;
  // db: the database file name inside the handle's data directory.
  explicit Query(std::string db, const Database* owner = nullptr) : db_(std::move(db)), owner_(owner) {}

  Query& Id(uint64_t id) {
    id_ = id;
    return *this;
  }
  Query& Db(std::string name) {
    db_ = std::move(name);
    return *this;
  }
  // Ask for SQLite's extended result code in an error response (request
  // key "codes", docs/protocol.md): Error::sqlite_code() is then set.  Off
  // by default, so the request and its response keep their reference bytes.
  Query& Codes(bool on = true) {
    codes_ = on;
    return *this;
  }

  Query& In(std::string table);
  Query& In(std::string table, std::string alias);
  Query& Find(Map filter);
  Query& Fields(std::vector<std::string> fields);
  Query& Join(std::vector<Map> joins);
  Query& Group(std::vector<std::string> keys);
  Query& Sort(Map keys);
  Query& Limit(int64_t n);
  Query& Offset(int64_t n);
  Query& Insert(Map row);
  Query& Insert(std::vector<Map> rows);
  Query& Set(Map columns);
  Query& Delete();
  Query& OnConflict(std::vector<std::string> columns);
  Query& DoUpdate(std::vector<std::string> columns);
  Query& DoNothing();
  // Make this a transaction of the given statements (each with its own In;
  // their Id/Db are ignored).  Clears any other command.
  Query& Tx(const std::vector<Query>& statements);

  uint64_t id() const noexcept { return id_; }
  bool codes() const noexcept { return codes_; }
  const std::string& db() const noexcept { return db_; }

  // The request as a Value tree ({id, db, commands[, codes]}).
  Value to_value() const;
  // The commands array alone.
  Value commands() const;
  // Append the MessagePack request to out (does not clear it).  Fails with
  // DALSHIM_E_ARG only if a string, binary, array or map exceeds 2^32-1
  // elements (MessagePack's limit; far beyond any request the DAL accepts).
  Status encode(Encoder& out) const;
  // The request bytes.  Throws dalshim::Error where encode() would fail.
  std::vector<uint8_t> bytes() const;

  // Run on the Database this query came from (db.In(...)): see Database::run.
  // Fails with DALSHIM_E_ARG if the query has no owner.
  Result<Response> run() const;
  Result<Rows> rows() const;
  Result<ExecResult> exec() const;

 private:
  uint64_t id_ = 0;
  bool codes_ = false;
  std::string db_ = "database.sqlite";
  const Database* owner_ = nullptr;
  std::array<std::optional<Array>, kMethodCount> args_;
  std::optional<Array> tx_;  // [[command, ...], ...]
};

}  // namespace dalshim
