#include "dalshim/value.hpp"

#include <cstdio>

namespace dalshim {

const Value* Value::find(std::string_view key) const noexcept {
  if (!is_map()) return nullptr;
  for (const auto& [k, v] : std::get<Map>(v_))
    if (k == key) return &v;
  return nullptr;
}

bool Value::operator==(const Value& o) const { return v_ == o.v_; }

namespace {
void quote(std::string& out, const std::string& s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      out += b;
    } else
      out += c;
  }
  out += '"';
}
void render(std::string& out, const Value& v) {
  switch (v.type()) {
    case Value::Type::Nil: out += "null"; break;
    case Value::Type::Bool: out += v.as_bool() ? "true" : "false"; break;
    case Value::Type::Int: out += std::to_string(v.as_int()); break;
    case Value::Type::Double: {
      char b[32];
      std::snprintf(b, sizeof b, "%.17g", v.as_double());
      out += b;
      break;
    }
    case Value::Type::String: quote(out, v.as_string()); break;
    case Value::Type::Binary: {
      out += "bin:";
      char b[4];
      for (uint8_t c : v.as_binary().bytes) {
        std::snprintf(b, sizeof b, "%02x", c);
        out += b;
      }
      break;
    }
    case Value::Type::Array: {
      out += '[';
      bool first = true;
      for (const auto& x : v.as_array()) {
        if (!first) out += ',';
        first = false;
        render(out, x);
      }
      out += ']';
      break;
    }
    case Value::Type::Map: {
      out += '{';
      bool first = true;
      for (const auto& [k, x] : v.as_map()) {
        if (!first) out += ',';
        first = false;
        quote(out, k);
        out += ':';
        render(out, x);
      }
      out += '}';
      break;
    }
  }
}
}  // namespace

std::string Value::to_string() const {
  std::string s;
  render(s, *this);
  return s;
}

}  // namespace dalshim
