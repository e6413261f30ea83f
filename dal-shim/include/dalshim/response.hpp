// dalshim/response.hpp -- protocol responses (docs/protocol.md), two ways:
//
//   parse_response   a zero-copy view over the MessagePack bytes: kind, id,
//                    ra/li/e and the SQLite code, columns and rows as
//                    msgpack::object ranges.  The Node addon turns those
//                    straight into JS values.
//   decode_response  typed values (Rows / ExecResult, Error for "e"),
//                    built on parse_response: there is one decoder.
//
// Forms (anything else is DALSHIM_E_RESPONSE):
//   {i, c, r}               -> ResponseKind::Rows
//   {i, ra, li}             -> ResponseKind::Exec
//   {i, ra, li, e [, ec]}   -> ResponseKind::SqlError; decode_response gives
//                              Error(DALSHIM_E_SQL, e, i, ec)
#pragma once

#ifndef MSGPACK_NO_BOOST
#define MSGPACK_NO_BOOST 1
#endif

#include <cstdint>
#include <memory>
#include <msgpack.hpp>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "dalshim/error.hpp"
#include "dalshim/value.hpp"

namespace dalshim {

// The response key that carries the database's error code next to "e",
// sent only when the request opts in (docs/protocol.md): SQLite's extended
// result code (an integer), or on PostgreSQL the SQLSTATE (a 5-character
// string).
inline constexpr std::string_view kSqliteCodeKey = "ec";

enum class ResponseKind { Rows, Exec, SqlError };

// A validated response, borrowing the bytes it was parsed from: strings and
// binaries point into them (zero copies), so the bytes must outlive the
// view.  The msgpack::objects live in a zone: the view's own (it then owns
// it, movable, not copyable) or the caller's (the caller keeps it and
// clears it after the view is gone).
//
// Validated at parse time: every column name is a str, every row is an
// array of exactly columns().size() cells, ra/li are integers, e is a str
// and ec a 32-bit integer or a SQLSTATE (5 digits or capital letters).  Cells are not interpreted: any MessagePack
// value.
class ResponseView {
 public:
  ResponseKind kind() const noexcept { return kind_; }
  uint64_t id() const noexcept { return id_; }

  // Exec and SqlError (both 0 for a SqlError).
  int64_t rows_affected() const noexcept { return ra_; }
  int64_t last_insert_id() const noexcept { return li_; }

  // SqlError: the message ("no such table: data"); empty otherwise.
  std::string_view error() const noexcept { return e_; }
  // SqlError: SQLite's extended result code (e.g. 1 SQLITE_ERROR, 2067
  // SQLITE_CONSTRAINT_UNIQUE) if the response carried one, else 0.
  int32_t sqlite_code() const noexcept { return ec_; }
  // SqlError on PostgreSQL: the SQLSTATE the response carried ("42P01"
  // undefined table), else empty.  At most one of the two is set.
  std::string_view sqlstate() const noexcept { return sqlstate_; }

  // Rows: the column names (each a STR object) and the rows (each an
  // ARRAY object of columns().size() cells).  Empty for other kinds.
  std::span<const msgpack::object> columns() const noexcept { return columns_; }
  std::span<const msgpack::object> rows() const noexcept { return rows_; }
  static std::string_view name(const msgpack::object& column) noexcept {
    return {column.via.str.ptr, column.via.str.size};
  }
  static std::span<const msgpack::object> cells(const msgpack::object& row) noexcept {
    return {row.via.array.ptr, row.via.array.size};
  }

 private:
  friend Result<ResponseView> parse_response(std::span<const uint8_t>, msgpack::zone&);
  friend Result<ResponseView> parse_response(std::span<const uint8_t>);
  ResponseView() = default;

  std::unique_ptr<msgpack::zone> own_zone_;  // null when parsed into the caller's zone
  ResponseKind kind_ = ResponseKind::Exec;
  uint64_t id_ = 0;
  int64_t ra_ = 0, li_ = 0;
  int32_t ec_ = 0;
  std::string_view e_, sqlstate_;
  std::span<const msgpack::object> columns_, rows_;
};

// Parse and validate bytes (exactly one MessagePack value).  Fails with
// DALSHIM_E_RESPONSE naming what is wrong.  The first form allocates its
// own zone; the second uses zone (which it does not clear: the view's
// objects are in it) and allocates nothing once zone is warm.
Result<ResponseView> parse_response(std::span<const uint8_t> bytes);
Result<ResponseView> parse_response(std::span<const uint8_t> bytes, msgpack::zone& zone);

struct Rows {
  uint64_t id = 0;
  std::vector<std::string> columns;
  std::vector<std::vector<Value>> rows;

  size_t size() const noexcept { return rows.size(); }
  // Index of a column, or -1.
  int column(std::string_view name) const noexcept;
  // Cell by row index and column name; throws std::out_of_range.
  const Value& at(size_t row, std::string_view col) const;
};

struct ExecResult {
  uint64_t id = 0;
  int64_t rows_affected = 0;
  int64_t last_insert_id = 0;
};

class Response {
 public:
  Response(Rows r) : v_(std::move(r)) {}  // NOLINT
  Response(ExecResult e) : v_(e) {}       // NOLINT
  bool is_rows() const noexcept { return v_.index() == 0; }
  uint64_t id() const noexcept { return is_rows() ? std::get<0>(v_).id : std::get<1>(v_).id; }
  // Throw std::bad_variant_access on the wrong kind.
  const Rows& rows() const { return std::get<0>(v_); }
  Rows& rows() { return std::get<0>(v_); }
  const ExecResult& exec() const { return std::get<1>(v_); }

 private:
  std::variant<Rows, ExecResult> v_;
};

// A MessagePack object as a Value (copies strings and binaries).  Integers
// above INT64_MAX become doubles (magnitude kept); ext becomes Binary;
// non-string map keys are rendered as text.
Value to_value(const msgpack::object& o);

// parse_response, then values: Rows or ExecResult; a SqlError response
// becomes Error(DALSHIM_E_SQL, e, i, ec); an invalid one
// Error(DALSHIM_E_RESPONSE).  Every error is recorded as the thread's last
// error (dalshim_last_error), like every other failure of the shim.
Result<Response> decode_response(std::span<const uint8_t> bytes);

}  // namespace dalshim
