// dalshim/response.hpp -- typed responses.
//
//   {i, c, r}          -> Rows
//   {i, ra, li}        -> ExecResult
//   {i, ra, li, e}     -> Error(DALSHIM_E_SQL, e, i)
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "dalshim/error.hpp"
#include "dalshim/value.hpp"

namespace dalshim {

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
  Response(Rows r) : v_(std::move(r)) {}         // NOLINT
  Response(ExecResult e) : v_(e) {}              // NOLINT
  bool is_rows() const noexcept { return v_.index() == 0; }
  uint64_t id() const noexcept { return is_rows() ? std::get<0>(v_).id : std::get<1>(v_).id; }
  // Throw std::bad_variant_access on the wrong kind.
  const Rows& rows() const { return std::get<0>(v_); }
  Rows& rows() { return std::get<0>(v_); }
  const ExecResult& exec() const { return std::get<1>(v_); }

 private:
  std::variant<Rows, ExecResult> v_;
};

// Decode a protocol response.  SQL errors ("e") become
// Error(DALSHIM_E_SQL); anything not matching docs/protocol.md becomes
// Error(DALSHIM_E_RESPONSE).
Result<Response> decode_response(std::span<const uint8_t> bytes);

}  // namespace dalshim
