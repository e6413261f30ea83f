#include "dalshim/response.hpp"

#include <limits>
#include <msgpack.hpp>
#include <stdexcept>

#include "dalshim.h"

namespace dalshim {

Value value_from_object(const msgpack::object& o) {
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
      for (uint32_t i = 0; i < o.via.array.size; ++i) a.push_back(value_from_object(o.via.array.ptr[i]));
      return Value(std::move(a));
    }
    case msgpack::type::MAP: {
      Map m;
      m.reserve(o.via.map.size);
      for (uint32_t i = 0; i < o.via.map.size; ++i) {
        const auto& kv = o.via.map.ptr[i];
        std::string key = kv.key.type == msgpack::type::STR
                              ? std::string(kv.key.via.str.ptr, kv.key.via.str.size)
                              : value_from_object(kv.key).to_string();
        m.emplace_back(std::move(key), value_from_object(kv.val));
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

Error bad(const std::string& why) { return Error(DALSHIM_E_RESPONSE, "invalid DAL response: " + why); }

bool key_is(const msgpack::object& k, std::string_view s) {
  return k.type == msgpack::type::STR && std::string_view(k.via.str.ptr, k.via.str.size) == s;
}

bool as_int(const msgpack::object& o, int64_t& out) {
  if (o.type == msgpack::type::POSITIVE_INTEGER) { out = static_cast<int64_t>(o.via.u64); return true; }
  if (o.type == msgpack::type::NEGATIVE_INTEGER) { out = o.via.i64; return true; }
  return false;
}

Result<Response> from_object(const msgpack::object& root) {
  if (root.type != msgpack::type::MAP) return bad("not a map");
  const msgpack::object *i = nullptr, *c = nullptr, *r = nullptr, *ra = nullptr, *li = nullptr, *e = nullptr;
  for (uint32_t k = 0; k < root.via.map.size; ++k) {
    const auto& kv = root.via.map.ptr[k];
    if (key_is(kv.key, "i")) i = &kv.val;
    else if (key_is(kv.key, "c")) c = &kv.val;
    else if (key_is(kv.key, "r")) r = &kv.val;
    else if (key_is(kv.key, "ra")) ra = &kv.val;
    else if (key_is(kv.key, "li")) li = &kv.val;
    else if (key_is(kv.key, "e")) e = &kv.val;
    else return bad("unknown key " + value_from_object(kv.key).to_string());
  }
  if (i == nullptr || i->type != msgpack::type::POSITIVE_INTEGER) return bad("missing or non-integer \"i\"");
  const uint64_t id = i->via.u64;
  if (c != nullptr || r != nullptr) {
    if (c == nullptr || r == nullptr || ra || li || e) return bad("rows response needs exactly i, c, r");
    if (c->type != msgpack::type::ARRAY || r->type != msgpack::type::ARRAY) return bad("\"c\" and \"r\" must be arrays");
    Rows rows;
    rows.id = id;
    rows.columns.reserve(c->via.array.size);
    for (uint32_t k = 0; k < c->via.array.size; ++k) {
      const auto& col = c->via.array.ptr[k];
      if (col.type != msgpack::type::STR) return bad("column name is not a string");
      rows.columns.emplace_back(col.via.str.ptr, col.via.str.size);
    }
    rows.rows.reserve(r->via.array.size);
    for (uint32_t k = 0; k < r->via.array.size; ++k) {
      const auto& row = r->via.array.ptr[k];
      if (row.type != msgpack::type::ARRAY || row.via.array.size != c->via.array.size)
        return bad("row " + std::to_string(k) + " is not an array of " + std::to_string(c->via.array.size) + " values");
      std::vector<Value> vals;
      vals.reserve(row.via.array.size);
      for (uint32_t j = 0; j < row.via.array.size; ++j) vals.push_back(value_from_object(row.via.array.ptr[j]));
      rows.rows.push_back(std::move(vals));
    }
    return Response(std::move(rows));
  }
  ExecResult x;
  x.id = id;
  if (ra == nullptr || li == nullptr || !as_int(*ra, x.rows_affected) || !as_int(*li, x.last_insert_id))
    return bad("missing or non-integer \"ra\"/\"li\"");
  if (e != nullptr) {
    if (e->type != msgpack::type::STR) return bad("\"e\" is not a string");
    return Error(DALSHIM_E_SQL, std::string(e->via.str.ptr, e->via.str.size), id);
  }
  return Response(x);
}

}  // namespace

Result<Response> decode_response(std::span<const uint8_t> bytes) {
  // One zone per thread, cleared after each decode: no allocation once warm
  // for responses that fit its chunks.
  thread_local msgpack::zone zone;
  try {
    size_t off = 0;
    msgpack::object o = msgpack::unpack(zone, reinterpret_cast<const char*>(bytes.data()), bytes.size(), off);
    if (off != bytes.size()) {
      zone.clear();
      return bad(std::to_string(bytes.size() - off) + " trailing bytes");
    }
    auto res = from_object(o);
    zone.clear();
    return res;
  } catch (const std::exception& ex) {
    zone.clear();
    return bad(std::string("malformed MessagePack: ") + ex.what());
  }
}

}  // namespace dalshim
