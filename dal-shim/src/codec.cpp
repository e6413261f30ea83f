#include "dalshim/codec.hpp"

#include <msgpack.hpp>

#include "dalshim.h"

namespace dalshim {
namespace {

void pack(msgpack::packer<Buffer>& pk, const Value& v) {
  switch (v.type()) {
    case Value::Type::Nil: pk.pack_nil(); break;
    case Value::Type::Bool: v.as_bool() ? pk.pack_true() : pk.pack_false(); break;
    case Value::Type::Int: pk.pack_int64(v.as_int()); break;  // smallest form
    case Value::Type::Double: pk.pack_double(v.as_double()); break;
    case Value::Type::String: {
      const auto& s = v.as_string();
      pk.pack_str(static_cast<uint32_t>(s.size()));
      pk.pack_str_body(s.data(), static_cast<uint32_t>(s.size()));
      break;
    }
    case Value::Type::Binary: {
      const auto& b = v.as_binary().bytes;
      pk.pack_bin(static_cast<uint32_t>(b.size()));
      pk.pack_bin_body(reinterpret_cast<const char*>(b.data()), static_cast<uint32_t>(b.size()));
      break;
    }
    case Value::Type::Array: {
      const auto& a = v.as_array();
      pk.pack_array(static_cast<uint32_t>(a.size()));
      for (const auto& x : a) pack(pk, x);
      break;
    }
    case Value::Type::Map: {
      const auto& m = v.as_map();
      pk.pack_map(static_cast<uint32_t>(m.size()));
      for (const auto& [k, x] : m) {
        pk.pack_str(static_cast<uint32_t>(k.size()));
        pk.pack_str_body(k.data(), static_cast<uint32_t>(k.size()));
        pack(pk, x);
      }
      break;
    }
  }
}

}  // namespace

void encode_value(const Value& v, Buffer& out) {
  msgpack::packer<Buffer> pk(out);
  pack(pk, v);
}

// Defined in response.cpp (shared with the response decoder).
Value value_from_object(const msgpack::object& o);

Result<Value> decode_value(std::span<const uint8_t> bytes) {
  try {
    size_t off = 0;
    msgpack::object_handle oh =
        msgpack::unpack(reinterpret_cast<const char*>(bytes.data()), bytes.size(), off);
    if (off != bytes.size())
      return Error(DALSHIM_E_RESPONSE, std::to_string(bytes.size() - off) + " trailing bytes after the MessagePack value");
    return value_from_object(oh.get());
  } catch (const std::exception& e) {
    return Error(DALSHIM_E_RESPONSE, std::string("malformed MessagePack: ") + e.what());
  }
}

}  // namespace dalshim
