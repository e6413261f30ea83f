// response.cpp -- the one response decoder: parse_response validates and
// exposes the MessagePack objects; decode_response turns them into values.
#include "dalshim/response.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "concat.hpp"
#include "dalshim.h"
#include "last_error.hpp"
#include "unpack_limits.hpp"

namespace dalshim {

namespace {

// The text of a map key that is not a string, for the Value model (string
// keys only) and for error messages.  Containers are summarised, never
// rendered: rendering a map key that is itself a map keyed by maps quotes
// each level's text again inside the next, which doubled the length per
// level (a 200-byte input ran for seconds; found by tests/fuzz, kept as
// corpus/response/regression-nested-map-keys).
std::string key_text(const msgpack::object& k) {
  switch (k.type) {
    case msgpack::type::STR: {
      constexpr size_t kMax = 64;
      std::string t(k.via.str.ptr, std::min<size_t>(k.via.str.size, kMax));
      if (k.via.str.size > kMax) t += "...";
      return '"' + t + '"';
    }
    // concat, not "literal" + std::string: concat.hpp says why.
    case msgpack::type::ARRAY: return dalkit::concat("[array of ", std::to_string(k.via.array.size), "]");
    case msgpack::type::MAP: return dalkit::concat("{map of ", std::to_string(k.via.map.size), "}");
    case msgpack::type::BIN: return dalkit::concat("<", std::to_string(k.via.bin.size), " bytes>");
    case msgpack::type::EXT: return dalkit::concat("<ext of ", std::to_string(k.via.ext.size), " bytes>");
    default: return to_value(k).to_string();  // a scalar: short
  }
}

}  // namespace

Value to_value(const msgpack::object& o) {
  switch (o.type) {
    case msgpack::type::NIL: return Value();
    case msgpack::type::BOOLEAN: return Value(o.via.boolean);
    case msgpack::type::POSITIVE_INTEGER:
      if (o.via.u64 > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return Value(static_cast<double>(o.via.u64));  // out of int64 range: keep magnitude
      return Value(static_cast<int64_t>(o.via.u64));
    case msgpack::type::NEGATIVE_INTEGER: return Value(o.via.i64);
    case msgpack::type::FLOAT32:
    case msgpack::type::FLOAT64: return Value(o.via.f64);
    case msgpack::type::STR: return Value(std::string(o.via.str.ptr, o.via.str.size));
    case msgpack::type::BIN: return Value::binary(o.via.bin.ptr, o.via.bin.size);
    case msgpack::type::EXT: return Value::binary(o.via.ext.data(), o.via.ext.size);
    case msgpack::type::ARRAY: {
      Array a;
      a.reserve(o.via.array.size);
      for (uint32_t i = 0; i < o.via.array.size; ++i) a.push_back(to_value(o.via.array.ptr[i]));
      return Value(std::move(a));
    }
    case msgpack::type::MAP: {
      Map m;
      m.reserve(o.via.map.size);
      for (uint32_t i = 0; i < o.via.map.size; ++i) {
        const auto& kv = o.via.map.ptr[i];
        std::string key =
            kv.key.type == msgpack::type::STR ? std::string(kv.key.via.str.ptr, kv.key.via.str.size) : key_text(kv.key);
        m.emplace_back(std::move(key), to_value(kv.val));
      }
      return Value(std::move(m));
    }
  }
  return Value();
}

int Rows::column(std::string_view name) const noexcept {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return static_cast<int>(i);
  return -1;
}

const Value& Rows::at(size_t row, std::string_view col) const {
  int c = column(col);
  if (c < 0) throw std::out_of_range("no column '" + std::string(col) + "'");
  return rows.at(row).at(static_cast<size_t>(c));
}

namespace {

Error bad(const std::string& why) { return detail::fail(DALSHIM_E_RESPONSE, "invalid DAL response: " + why); }

std::string_view str_of(const msgpack::object& o) { return {o.via.str.ptr, o.via.str.size}; }

bool as_int(const msgpack::object& o, int64_t& out) {
  if (o.type == msgpack::type::POSITIVE_INTEGER && o.via.u64 <= static_cast<uint64_t>(INT64_MAX)) {
    out = static_cast<int64_t>(o.via.u64);
    return true;
  }
  if (o.type == msgpack::type::NEGATIVE_INTEGER) {
    out = o.via.i64;
    return true;
  }
  return false;
}

// Strings and binaries reference the input bytes instead of being copied
// into the zone: the view is zero-copy and borrows the bytes.
bool reference_everything(msgpack::type::object_type, size_t, void*) { return true; }

}  // namespace

Result<ResponseView> parse_response(std::span<const uint8_t> bytes, msgpack::zone& zone) {
  msgpack::object root;
  try {
    size_t off = 0;
    bool referenced = false;
    root = msgpack::unpack(zone, reinterpret_cast<const char*>(bytes.data()), bytes.size(), off, referenced,
                           reference_everything, nullptr, detail::unpack_limits_for(bytes.size()));
    if (off != bytes.size()) return bad(std::to_string(bytes.size() - off) + " trailing bytes");
  } catch (const std::bad_alloc&) {
    return detail::fail(DALSHIM_E_NOMEM, "out of memory decoding a DAL response");
  } catch (const std::exception& ex) {
    return bad(std::string("malformed MessagePack: ") + ex.what());
  }
  if (root.type != msgpack::type::MAP) return bad("not a map");
  const msgpack::object *i = nullptr, *c = nullptr, *r = nullptr, *ra = nullptr, *li = nullptr, *e = nullptr,
                        *ec = nullptr;
  for (uint32_t k = 0; k < root.via.map.size; ++k) {
    const auto& kv = root.via.map.ptr[k];
    const msgpack::object** slot = nullptr;
    if (kv.key.type == msgpack::type::STR) {
      const std::string_view key = str_of(kv.key);
      if (key == "i")
        slot = &i;
      else if (key == "c")
        slot = &c;
      else if (key == "r")
        slot = &r;
      else if (key == "ra")
        slot = &ra;
      else if (key == "li")
        slot = &li;
      else if (key == "e")
        slot = &e;
      else if (key == kSqliteCodeKey)
        slot = &ec;
    }
    if (slot == nullptr) return bad("unknown key " + key_text(kv.key));
    if (*slot != nullptr) return bad("duplicate key " + key_text(kv.key));
    *slot = &kv.val;
  }
  if (i == nullptr || i->type != msgpack::type::POSITIVE_INTEGER) return bad("missing or non-integer \"i\"");
  ResponseView v;
  v.id_ = i->via.u64;
  if (c != nullptr || r != nullptr) {
    if (c == nullptr || r == nullptr || ra || li || e || ec) return bad("rows response needs exactly i, c, r");
    if (c->type != msgpack::type::ARRAY || r->type != msgpack::type::ARRAY)
      return bad("\"c\" and \"r\" must be arrays");
    const uint32_t ncols = c->via.array.size;
    for (uint32_t k = 0; k < ncols; ++k)
      if (c->via.array.ptr[k].type != msgpack::type::STR) return bad("column name is not a string");
    for (uint32_t k = 0; k < r->via.array.size; ++k) {
      const auto& row = r->via.array.ptr[k];
      if (row.type != msgpack::type::ARRAY || row.via.array.size != ncols)
        return bad("row " + std::to_string(k) + " is not an array of " + std::to_string(ncols) + " values");
    }
    v.kind_ = ResponseKind::Rows;
    v.columns_ = {c->via.array.ptr, ncols};
    v.rows_ = {r->via.array.ptr, r->via.array.size};
    return v;
  }
  if (ra == nullptr || li == nullptr || !as_int(*ra, v.ra_) || !as_int(*li, v.li_))
    return bad("missing or non-integer \"ra\"/\"li\"");
  if (e == nullptr) {
    if (ec != nullptr) return bad("\"" + std::string(kSqliteCodeKey) + "\" without \"e\"");
    v.kind_ = ResponseKind::Exec;
    return v;
  }
  if (e->type != msgpack::type::STR) return bad("\"e\" is not a string");
  v.kind_ = ResponseKind::SqlError;
  v.e_ = str_of(*e);
  if (ec != nullptr && ec->type == msgpack::type::STR) {
    // PostgreSQL's SQLSTATE: five characters, each a digit or a capital letter.
    const std::string_view s = str_of(*ec);
    if (s.size() != 5 ||
        !std::all_of(s.begin(), s.end(), [](char ch) { return (ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'Z'); }))
      return bad("\"" + std::string(kSqliteCodeKey) +
                 "\" is a string but not a SQLSTATE (5 digits or capital letters)");
    v.sqlstate_ = s;
  } else if (ec != nullptr) {
    int64_t code = 0;
    if (!as_int(*ec, code) || code < INT32_MIN || code > INT32_MAX)
      return bad("\"" + std::string(kSqliteCodeKey) + "\" is neither a 32-bit integer nor a SQLSTATE string");
    v.ec_ = static_cast<int32_t>(code);
  }
  return v;
}

Result<ResponseView> parse_response(std::span<const uint8_t> bytes) {
  std::unique_ptr<msgpack::zone> zone;
  try {
    zone = std::make_unique<msgpack::zone>();
  } catch (const std::bad_alloc&) {
    return detail::fail(DALSHIM_E_NOMEM, "out of memory decoding a DAL response");
  }
  auto r = parse_response(bytes, *zone);
  if (r) r->own_zone_ = std::move(zone);
  return r;
}

Result<Response> decode_response(std::span<const uint8_t> bytes) {
  // One zone per thread, cleared after each decode: no allocation once warm
  // for responses that fit its first chunk.
  thread_local msgpack::zone zone;
  struct Clear {
    msgpack::zone& z;
    ~Clear() { z.clear(); }
  } clear{zone};
  auto parsed = parse_response(bytes, zone);
  if (!parsed) return parsed.error();
  const ResponseView& v = *parsed;
  switch (v.kind()) {
    case ResponseKind::Rows: {
      Rows rows;
      rows.id = v.id();
      rows.columns.reserve(v.columns().size());
      for (const auto& col : v.columns()) rows.columns.emplace_back(ResponseView::name(col));
      rows.rows.reserve(v.rows().size());
      for (const auto& row : v.rows()) {
        std::vector<Value> vals;
        vals.reserve(row.via.array.size);
        for (const auto& cell : ResponseView::cells(row)) vals.push_back(to_value(cell));
        rows.rows.push_back(std::move(vals));
      }
      return Response(std::move(rows));
    }
    case ResponseKind::Exec: return Response(ExecResult{v.id(), v.rows_affected(), v.last_insert_id()});
    case ResponseKind::SqlError: break;
  }
  return detail::fail(DALSHIM_E_SQL, std::string(v.error()), v.id(), v.sqlite_code(), std::string(v.sqlstate()));
}

}  // namespace dalshim
