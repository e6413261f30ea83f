// mini_json.hpp -- a small strict JSON parser for the report tests only.
//
// The monitor writes JSON by hand; the tests must not trust the same hands,
// so this parser is independent and rejects anything RFC 8259 does not allow
// (trailing commas, raw control characters, bad escapes, NaN).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace minijson {

struct Value {
  enum Type { Null, Bool, Number, String, Array, Object } type = Null;
  bool b = false;
  double num = 0;
  std::string str;
  std::vector<Value> arr;
  std::map<std::string, Value> obj;

  const Value& operator[](const std::string& k) const {
    auto it = obj.find(k);
    if (type != Object || it == obj.end()) throw std::runtime_error("no key " + k);
    return it->second;
  }
  const Value& operator[](size_t i) const { return arr.at(i); }
  bool has(const std::string& k) const { return type == Object && obj.count(k); }
};

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}
  Value parse() {
    Value v = value();
    ws();
    if (i_ != s_.size()) err("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void err(const std::string& m) { throw std::runtime_error(m + " at " + std::to_string(i_)); }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  bool lit(const char* w) {
    size_t n = std::char_traits<char>::length(w);
    if (s_.compare(i_, n, w) == 0) {
      i_ += n;
      return true;
    }
    return false;
  }
  Value value() {
    ws();
    if (i_ >= s_.size()) err("unexpected end");
    Value v;
    char c = s_[i_];
    if (c == '{') {
      v.type = Value::Object;
      ++i_;
      ws();
      if (s_[i_] == '}') {
        ++i_;
        return v;
      }
      for (;;) {
        ws();
        if (s_[i_] != '"') err("expected key");
        std::string k = string();
        ws();
        if (s_[i_++] != ':') err("expected :");
        if (v.obj.count(k)) err("duplicate key " + k);
        v.obj[k] = value();
        ws();
        if (s_[i_] == ',') {
          ++i_;
          continue;
        }
        if (s_[i_] == '}') {
          ++i_;
          return v;
        }
        err("expected , or }");
      }
    }
    if (c == '[') {
      v.type = Value::Array;
      ++i_;
      ws();
      if (s_[i_] == ']') {
        ++i_;
        return v;
      }
      for (;;) {
        v.arr.push_back(value());
        ws();
        if (s_[i_] == ',') {
          ++i_;
          continue;
        }
        if (s_[i_] == ']') {
          ++i_;
          return v;
        }
        err("expected , or ]");
      }
    }
    if (c == '"') {
      v.type = Value::String;
      v.str = string();
      return v;
    }
    if (lit("true")) {
      v.type = Value::Bool;
      v.b = true;
      return v;
    }
    if (lit("false")) {
      v.type = Value::Bool;
      return v;
    }
    if (lit("null")) return v;
    return number();
  }
  Value number() {
    size_t st = i_;
    if (s_[i_] == '-') ++i_;
    if (i_ < s_.size() && s_[i_] == '0')
      ++i_;
    else if (i_ < s_.size() && s_[i_] >= '1' && s_[i_] <= '9')
      while (i_ < s_.size() && isdigit((unsigned char)s_[i_])) ++i_;
    else
      err("bad number");
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (!isdigit((unsigned char)s_[i_])) err("bad fraction");
      while (i_ < s_.size() && isdigit((unsigned char)s_[i_])) ++i_;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (s_[i_] == '+' || s_[i_] == '-') ++i_;
      if (!isdigit((unsigned char)s_[i_])) err("bad exponent");
      while (i_ < s_.size() && isdigit((unsigned char)s_[i_])) ++i_;
    }
    Value v;
    v.type = Value::Number;
    v.num = std::stod(s_.substr(st, i_ - st));
    return v;
  }
  std::string string() {
    ++i_;  // opening quote
    std::string out;
    while (i_ < s_.size()) {
      unsigned char c = s_[i_++];
      if (c == '"') return out;
      if (c < 0x20) err("raw control character in string");
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      char e = s_[i_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = std::stoul(s_.substr(i_, 4), nullptr, 16);
          i_ += 4;
          if (cp < 0x80)
            out += static_cast<char>(cp);
          else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 63));
          } else {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 63));
            out += static_cast<char>(0x80 | (cp & 63));
          }
          break;
        }
        default: err("bad escape");
      }
    }
    err("unterminated string");
  }
  const std::string& s_;
  size_t i_ = 0;
};

inline Value parse(const std::string& s) { return Parser(s).parse(); }

}  // namespace minijson
