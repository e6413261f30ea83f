// json_writer.hpp -- a minimal streaming JSON writer.
//
// Hand-written rather than a dependency: the monitor is whole-archived into
// libdalshim.so, loaded into every JS runtime, and must not drag a library
// (or its exceptions and symbols) along.  It writes RFC 8259 JSON: strings are
// escaped and invalid UTF-8 is replaced by U+FFFD; NaN/Inf become null.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dalmon {

class JsonWriter {
 public:
  explicit JsonWriter(bool pretty = true) : pretty_(pretty) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view k);  // inside an object, before the value

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return s ? value(std::string_view(s)) : null(); }
  JsonWriter& value(int64_t v);
  JsonWriter& value(int v) { return value(static_cast<int64_t>(v)); }
  JsonWriter& value(double v);
  JsonWriter& value(bool v);
  JsonWriter& null();
  // -1 (the kit's "not available") becomes null.
  JsonWriter& maybe(int64_t v) { return v < 0 ? null() : value(v); }

  const std::string& str() const noexcept { return out_; }

  static void escape_into(std::string& out, std::string_view s);

 private:
  void before_value();
  void newline();

  std::string out_;
  struct Level {
    bool object;
    bool empty;
  };
  std::vector<Level> stack_;
  bool after_key_ = false;
  bool pretty_;
};

}  // namespace dalmon
