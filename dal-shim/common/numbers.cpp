#include "numbers.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

namespace dalkit {
namespace {

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// The pieces of [+|-] int [. frac] [e [+|-] exp], positions into the text.
struct Parts {
  bool negative = false;
  std::string_view int_part;   // digits, possibly with '_' / ',' between digits
  std::string_view frac_part;  // digits
  bool has_point = false;
  bool has_exp = false;
  bool exp_negative = false;
  std::string_view exp_part;  // digits
};

// Splits text into Parts; false on any character outside the grammar.
// allow_grouping: '_' and ',' accepted between two digits of int_part.
bool split(std::string_view s, bool allow_grouping, Parts& p) noexcept {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) p.negative = s[i++] == '-';
  const size_t int_begin = i;
  while (i < s.size()) {
    if (is_digit(s[i])) {
      ++i;
    } else if (allow_grouping && (s[i] == '_' || s[i] == ',')) {
      // A separator needs a digit on each side.
      if (i == int_begin || !is_digit(s[i - 1]) || i + 1 >= s.size() || !is_digit(s[i + 1])) return false;
      ++i;
    } else {
      break;
    }
  }
  p.int_part = s.substr(int_begin, i - int_begin);
  if (i < s.size() && s[i] == '.') {
    p.has_point = true;
    const size_t b = ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
    p.frac_part = s.substr(b, i - b);
  }
  if (p.int_part.empty() && p.frac_part.empty()) return false;  // "", "+", ".", "e5"
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    p.has_exp = true;
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) p.exp_negative = s[i++] == '-';
    const size_t b = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    p.exp_part = s.substr(b, i - b);
    if (p.exp_part.empty()) return false;
  }
  return i == s.size();
}

}  // namespace

std::optional<int64_t> parse_int(std::string_view text, IntSyntax syntax) noexcept {
  Parts p;
  const bool human = syntax == IntSyntax::Human;
  if (!split(text, /*allow_grouping=*/human, p)) return std::nullopt;
  if (!human && (p.has_point || p.has_exp)) return std::nullopt;
  // The significant digits (integer part without separators, then the
  // fraction) and the power of ten that scales them.
  std::string_view frac = p.frac_part;
  while (!frac.empty() && frac.back() == '0') frac.remove_suffix(1);  // "1.50e1" = "1.5e1"
  int64_t exp = 0;
  if (p.has_exp) {
    // Exponents beyond +-400 cannot give a representable non-zero integer;
    // clamp while reading so the loop below cannot overflow.
    for (char c : p.exp_part) exp = std::min<int64_t>(exp * 10 + (c - '0'), 100000);
    if (p.exp_negative) exp = -exp;
  }
  exp -= static_cast<int64_t>(frac.size());
  // Accumulate as a negative number: int64 has one more negative value.
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  int64_t acc = 0;
  bool nonzero = false;
  auto push = [&](char c) -> bool {
    const int d = c - '0';
    if (acc < kMin / 10 || acc * 10 < kMin + d) return false;
    acc = acc * 10 - d;
    nonzero = nonzero || d != 0;
    return true;
  };
  for (char c : p.int_part)
    if (is_digit(c) && !push(c)) return std::nullopt;
  for (char c : frac)
    if (!push(c)) return std::nullopt;
  if (!nonzero) return int64_t{0};  // "0e999", "0.000"
  for (; exp > 0; --exp)
    if (!push('0')) return std::nullopt;
  for (; exp < 0; ++exp) {
    if (acc % 10 != 0) return std::nullopt;  // a fraction remains: not an integer
    acc /= 10;
  }
  if (p.negative) return acc;
  if (acc == kMin) return std::nullopt;  // 9223372036854775808 does not fit
  return -acc;
}

std::optional<double> parse_double(std::string_view text) noexcept {
  Parts p;
  if (!split(text, /*allow_grouping=*/false, p)) return std::nullopt;
  // from_chars takes no leading '+'; the grammar was checked above.
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  double d = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d, std::chars_format::general);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(d)) return std::nullopt;
  return d;
}

}  // namespace dalkit
