// dalshim/value.hpp -- the value model of the protocol: nil, bool, int64,
// double, string, binary, array and ordered map (string keys, insertion
// order kept, because filter entries and sort keys are order-sensitive).
//
// Construction mirrors JS object literals:
//   Value v = {{"a", 1}, {"b", {{"$gt", 2}}}};     // map
//   Value a = Value::array({1, "x", nullptr});      // array (explicit, so a
//                                                  // braced pair is never
//                                                  // mistaken for an array)
#pragma once

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace dalshim {

class Value;

struct Binary {
  std::vector<uint8_t> bytes;
  bool operator==(const Binary&) const = default;
};

using Array = std::vector<Value>;
using Entry = std::pair<std::string, Value>;
using Map = std::vector<Entry>;

class Value {
 public:
  enum class Type { Nil, Bool, Int, Double, String, Binary, Array, Map };

  Value() noexcept = default;
  Value(std::nullptr_t) noexcept {}  // NOLINT
  Value(bool b) : v_(b) {}           // NOLINT
  template <std::integral I>
  requires(!std::same_as<I, bool>) Value(I i) : v_(static_cast<int64_t>(i)) {}  // NOLINT
  Value(double d) : v_(d) {}                                                    // NOLINT
  Value(float d) : v_(static_cast<double>(d)) {}                                // NOLINT
  Value(const char* s) : v_(std::string(s)) {}                                  // NOLINT
  Value(std::string s) : v_(std::move(s)) {}                                    // NOLINT
  Value(std::string_view s) : v_(std::string(s)) {}                             // NOLINT
  Value(Binary b) : v_(std::move(b)) {}                                         // NOLINT
  Value(Array a) : v_(std::move(a)) {}                                          // NOLINT
  Value(Map m) : v_(std::move(m)) {}                                            // NOLINT
  Value(std::initializer_list<Entry> m) : v_(Map(m)) {}                         // NOLINT

  static Value array(std::initializer_list<Value> items) { return Value(Array(items)); }
  static Value binary(const void* p, size_t n) {
    auto b = static_cast<const uint8_t*>(p);
    return Value(Binary{std::vector<uint8_t>(b, b + n)});
  }

  Type type() const noexcept { return static_cast<Type>(v_.index()); }
  bool is_nil() const noexcept { return type() == Type::Nil; }
  bool is_bool() const noexcept { return type() == Type::Bool; }
  bool is_int() const noexcept { return type() == Type::Int; }
  bool is_double() const noexcept { return type() == Type::Double; }
  bool is_string() const noexcept { return type() == Type::String; }
  bool is_binary() const noexcept { return type() == Type::Binary; }
  bool is_array() const noexcept { return type() == Type::Array; }
  bool is_map() const noexcept { return type() == Type::Map; }

  // Accessors throw std::bad_variant_access on a type mismatch.
  bool as_bool() const { return std::get<bool>(v_); }
  int64_t as_int() const { return std::get<int64_t>(v_); }
  double as_double() const { return std::get<double>(v_); }
  const std::string& as_string() const { return std::get<std::string>(v_); }
  const Binary& as_binary() const { return std::get<Binary>(v_); }
  const Array& as_array() const { return std::get<Array>(v_); }
  Array& as_array() { return std::get<Array>(v_); }
  const Map& as_map() const { return std::get<Map>(v_); }
  Map& as_map() { return std::get<Map>(v_); }

  // Map lookup by key (first match), nullptr if absent or not a map.
  const Value* find(std::string_view key) const noexcept;

  bool operator==(const Value& o) const;
  // Human-readable, JSON-like (for test failure messages and debugging).
  std::string to_string() const;

 private:
  std::variant<std::monostate, bool, int64_t, double, std::string, Binary, Array, Map> v_;
};

}  // namespace dalshim
