#include "dalshim/codec.hpp"

#include "dalshim.h"
#include "dalshim/response.hpp"
#include "last_error.hpp"
#include "unpack_limits.hpp"

namespace dalshim {

void Encoder::value(const Value& v) {
  Encoder& out = *this;
  switch (v.type()) {
    case Value::Type::Nil: out.nil(); break;
    case Value::Type::Bool: out.boolean(v.as_bool()); break;
    case Value::Type::Int: out.int64(v.as_int()); break;
    case Value::Type::Double: out.float64(v.as_double()); break;
    case Value::Type::String: out.str(v.as_string()); break;
    case Value::Type::Binary: out.bin(v.as_binary().bytes); break;
    case Value::Type::Array:
      out.array_header(v.as_array().size());
      for (const auto& x : v.as_array()) value(x);
      break;
    case Value::Type::Map:
      out.map_header(v.as_map().size());
      for (const auto& [k, x] : v.as_map()) {
        out.str(k);
        value(x);
      }
      break;
  }
}

Status encode_value(const Value& v, Encoder& out) {
  out.value(v);
  if (!out.ok()) return detail::fail(DALSHIM_E_ARG, "a string, binary, array or map exceeds 2^32-1 elements");
  return Ok{};
}

Result<Value> decode_value(std::span<const uint8_t> bytes) {
  try {
    size_t off = 0;
    msgpack::object_handle oh = msgpack::unpack(reinterpret_cast<const char*>(bytes.data()), bytes.size(), off, nullptr,
                                                nullptr, detail::unpack_limits_for(bytes.size()));
    if (off != bytes.size())
      return detail::fail(DALSHIM_E_RESPONSE,
                          std::to_string(bytes.size() - off) + " trailing bytes after the MessagePack value");
    return to_value(oh.get());
  } catch (const std::bad_alloc&) {
    return detail::fail(DALSHIM_E_NOMEM, "out of memory decoding MessagePack");
  } catch (const std::exception& e) {
    return detail::fail(DALSHIM_E_RESPONSE, std::string("malformed MessagePack: ") + e.what());
  }
}

}  // namespace dalshim
