#include "js_decoder.hpp"

#include <optional>
#include <string>

#include "addon.hpp"
#include "dalshim.hpp"
#include "napi_check.hpp"

namespace dalkit {
namespace {

constexpr double kMaxSafe = 9007199254740991.0;  // 2^53 - 1
// Cells of a valid response are scalars; nested values are walked only to a
// bounded depth, so a hostile DAL cannot exhaust the stack.
constexpr int kMaxCellDepth = 64;

// The parse zone: one per JS thread, reused (no allocation once warm).  A
// nested decode on the same thread (a setter on Object.prototype running a
// query while rows are built) gets a zone of its own.
class ZoneLease {
 public:
  ZoneLease() {
    if (!busy_) {
      busy_ = true;
      shared_ = true;
    } else {
      own_.emplace();
    }
  }
  ~ZoneLease() {
    if (shared_) {
      zone_.clear();
      busy_ = false;
    }
  }
  ZoneLease(const ZoneLease&) = delete;
  ZoneLease& operator=(const ZoneLease&) = delete;
  msgpack::zone& zone() { return shared_ ? zone_ : *own_; }

 private:
  static thread_local msgpack::zone zone_;
  static thread_local bool busy_;
  bool shared_ = false;
  std::optional<msgpack::zone> own_;
};
thread_local msgpack::zone ZoneLease::zone_;
thread_local bool ZoneLease::busy_ = false;

napi_value number_or_bigint(napi_env env, int64_t v) {
  napi_value out;
  if (v >= -static_cast<int64_t>(kMaxSafe) && v <= static_cast<int64_t>(kMaxSafe))
    DALKIT_NAPI(env, napi_create_double(env, static_cast<double>(v), &out));
  else
    DALKIT_NAPI(env, napi_create_bigint_int64(env, v, &out));
  return out;
}

class Converter {
 public:
  Converter(napi_env env, const Addon& addon) : env_(env), addon_(addon) {}

  napi_value value(const msgpack::object& o, int depth) {
    napi_value out;
    switch (o.type) {
      case msgpack::type::NIL: DALKIT_NAPI(env_, napi_get_null(env_, &out)); return out;
      case msgpack::type::BOOLEAN: DALKIT_NAPI(env_, napi_get_boolean(env_, o.via.boolean, &out)); return out;
      case msgpack::type::POSITIVE_INTEGER:
        if (o.via.u64 <= static_cast<uint64_t>(kMaxSafe))
          DALKIT_NAPI(env_, napi_create_double(env_, static_cast<double>(o.via.u64), &out));
        else
          DALKIT_NAPI(env_, napi_create_bigint_uint64(env_, o.via.u64, &out));
        return out;
      case msgpack::type::NEGATIVE_INTEGER: return number_or_bigint(env_, o.via.i64);
      case msgpack::type::FLOAT32:
      case msgpack::type::FLOAT64: DALKIT_NAPI(env_, napi_create_double(env_, o.via.f64, &out)); return out;
      case msgpack::type::STR:
        DALKIT_NAPI(env_, napi_create_string_utf8(env_, o.via.str.ptr, o.via.str.size, &out));
        return out;
      case msgpack::type::BIN:
        // A copy in JS-owned memory (never an external buffer).
        DALKIT_NAPI(env_, napi_create_buffer_copy(env_, o.via.bin.size, o.via.bin.ptr, nullptr, &out));
        return out;
      case msgpack::type::EXT:
        DALKIT_NAPI(env_, napi_create_buffer_copy(env_, o.via.ext.size, o.via.ext.data(), nullptr, &out));
        return out;
      case msgpack::type::ARRAY: {
        nested(depth);
        DALKIT_NAPI(env_, napi_create_array_with_length(env_, o.via.array.size, &out));
        for (uint32_t i = 0; i < o.via.array.size; ++i)
          DALKIT_NAPI(env_, napi_set_element(env_, out, i, value(o.via.array.ptr[i], depth + 1)));
        return out;
      }
      case msgpack::type::MAP: {
        nested(depth);
        DALKIT_NAPI(env_, napi_create_object(env_, &out));
        for (uint32_t i = 0; i < o.via.map.size; ++i) {
          const auto& kv = o.via.map.ptr[i];
          napi_value k = kv.key.type == msgpack::type::STR ? value(kv.key, depth + 1) : coerce_key(kv.key, depth);
          set(out, k, value(kv.val, depth + 1));
        }
        return out;
      }
    }
    throw bad("unknown MessagePack type");
  }

  // obj[key] = v as a data property: a "__proto__" column is an own
  // property, never a change of the object's prototype.
  void set(napi_value obj, napi_value key, napi_value v) {
    size_t n = 0;
    char buf[10];
    if (napi_get_value_string_utf8(env_, key, buf, sizeof buf, &n) == napi_ok && n == 9 &&
        std::string_view(buf, n) == "__proto__") {
      napi_property_descriptor d{nullptr, key, nullptr, nullptr, nullptr, v, napi_default_jsproperty, nullptr};
      DALKIT_NAPI(env_, napi_define_properties(env_, obj, 1, &d));
      return;
    }
    DALKIT_NAPI(env_, napi_set_property(env_, obj, key, v));
  }

  Napi::Error bad(const std::string& why) const {
    return Napi::Error(env_, addon_.dal_error(DALSHIM_E_RESPONSE, "invalid DAL response: " + why));
  }

 private:
  void nested(int depth) const {
    if (depth >= kMaxCellDepth) throw bad("values nested deeper than " + std::to_string(kMaxCellDepth) + " levels");
  }
  napi_value coerce_key(const msgpack::object& k, int depth) {
    napi_value v = value(k, depth + 1), s;
    DALKIT_NAPI(env_, napi_coerce_to_string(env_, v, &s));
    return s;
  }

  napi_env env_;
  const Addon& addon_;
};

const char* kind_name(dalshim::ResponseKind k) {
  return k == dalshim::ResponseKind::Rows ? "rows {i,c,r}" : "an exec result {i,ra,li}";
}

}  // namespace

Decoded decode_response(Napi::Env env, const Addon& addon, std::span<const uint8_t> bytes, Shape shape,
                        uint64_t expected_id) {
  ZoneLease lease;
  auto parsed = dalshim::parse_response(bytes, lease.zone());
  if (!parsed) return {addon.dal_error(parsed.error()), true};
  const dalshim::ResponseView& r = *parsed;
  Converter conv(env, addon);
  if (r.id() != expected_id) {
    return {
        conv.bad("response id " + std::to_string(r.id()) + " does not answer request " + std::to_string(expected_id))
            .Value(),
        true};
  }
  if (r.kind() == dalshim::ResponseKind::SqlError) {
    return {addon.dal_error(DALSHIM_E_SQL, std::string(r.error()), static_cast<int64_t>(r.id()), r.sqlite_code()),
            true};
  }
  const bool want_rows = shape != Shape::Exec;
  if (want_rows != (r.kind() == dalshim::ResponseKind::Rows)) {
    return {conv.bad(std::string("expected ") + (want_rows ? "rows {i,c,r}" : "an exec result {i,ra,li}") + ", got " +
                     kind_name(r.kind()))
                .Value(),
            true};
  }
  if (shape == Shape::Exec) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("rowsAffected", Napi::Value(env, number_or_bigint(env, r.rows_affected())));
    o.Set("lastInsertId", Napi::Value(env, number_or_bigint(env, r.last_insert_id())));
    return {o};
  }

  // Column names once per response; every row object reuses the handles.
  auto cols = r.columns();
  std::vector<napi_value> names(cols.size());
  for (size_t j = 0; j < cols.size(); ++j) names[j] = conv.value(cols[j], 1);
  auto rows = r.rows();
  napi_value list;
  DALKIT_NAPI(env, napi_create_array_with_length(env, rows.size(), &list));
  for (size_t i = 0; i < rows.size(); ++i) {
    // One scope per row: a large result does not pile up handles.
    Napi::HandleScope scope(env);
    auto cells = dalshim::ResponseView::cells(rows[i]);
    napi_value row;
    if (shape == Shape::Objects) {
      DALKIT_NAPI(env, napi_create_object(env, &row));
      for (size_t j = 0; j < cells.size(); ++j) conv.set(row, names[j], conv.value(cells[j], 2));
    } else {
      DALKIT_NAPI(env, napi_create_array_with_length(env, cells.size(), &row));
      for (size_t j = 0; j < cells.size(); ++j)
        DALKIT_NAPI(env, napi_set_element(env, row, static_cast<uint32_t>(j), conv.value(cells[j], 2)));
    }
    DALKIT_NAPI(env, napi_set_element(env, list, static_cast<uint32_t>(i), row));
  }
  if (shape == Shape::Objects) return {Napi::Value(env, list)};
  napi_value columns;
  DALKIT_NAPI(env, napi_create_array_with_length(env, names.size(), &columns));
  for (size_t j = 0; j < names.size(); ++j)
    DALKIT_NAPI(env, napi_set_element(env, columns, static_cast<uint32_t>(j), names[j]));
  Napi::Object o = Napi::Object::New(env);
  o.Set("columns", Napi::Value(env, columns));
  o.Set("rows", Napi::Value(env, list));
  return {o};
}

}  // namespace dalkit
