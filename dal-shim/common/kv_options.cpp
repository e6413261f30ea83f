#include "kv_options.hpp"

#include <algorithm>

namespace dalkit {
namespace {

bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
bool is_sep(char c) noexcept { return c == ';' || c == ','; }

std::string quoted(std::string_view item) { return "option '" + std::string(item) + "'"; }

}  // namespace

bool parse_kv_options(std::string_view text, std::vector<KvPair>& out, std::string& error) {
  std::vector<KvPair> pairs;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = pos;
    while (end < text.size() && !is_sep(text[end])) ++end;
    const std::string_view item = text.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      error = quoted(item) + " has no value; expected key=value";
      return false;
    }
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key.empty()) {
      error = quoted(item) + " has no key; expected key=value";
      return false;
    }
    if (std::any_of(key.begin(), key.end(), is_space)) {
      error = quoted(item) + ": whitespace in or around the key";
      return false;
    }
    if (!value.empty() && (is_space(value.front()) || is_space(value.back()))) {
      error = quoted(item) + ": whitespace around the value";
      return false;
    }
    if (std::any_of(pairs.begin(), pairs.end(), [&](const KvPair& p) { return p.key == key; })) {
      error = "option '" + std::string(key) + "' given twice";
      return false;
    }
    pairs.push_back(KvPair{std::string(key), std::string(value)});
  }
  out = std::move(pairs);
  return true;
}

std::string format_kv_options(const std::vector<KvPair>& pairs) {
  std::string s;
  for (const auto& p : pairs) {
    if (!s.empty()) s += ';';
    s += p.key;
    s += '=';
    s += p.value;
  }
  return s;
}

}  // namespace dalkit
