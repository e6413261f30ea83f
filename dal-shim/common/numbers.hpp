// numbers.hpp -- the kit's one parser of numbers typed by people: dalstress
// flags, dalmon_start parameters and option values such as
// plant_leak_bytes=N all go through it, so "1e6" means the same everywhere.
//
// INTEGERS (parse_int): the kit's one grammar of integers typed by people.
// The JS drivers' parseCount (stress/js/options.js) implements the same;
// tests/common/number-cases.json is one table of cases that both are tested
// against (tests/shim/numbers_test.cpp, tests/node/number-cases.test.js).
//
//   [+|-] mantissa [ ('e'|'E') [+|-] digits ]
//   mantissa:  int [ '.' [digits] ]  |  '.' digits
//
//   - "5." and ".5e1" are 5 (an empty fraction or integer part, as strtod
//     reads them); "." alone is refused.
//   - Digits may be grouped with '_' or ',' between two digits:
//     "100_000_000", "1,000,000".  A separator must sit between digits
//     ("_1", "1__0", "1_" are refused).  Grouping is allowed in the integer
//     part only, and only where ',' is not the surrounding syntax's
//     separator (in a k=v;k=v string a ',' ends the item before this parser
//     sees it).
//   - Scientific and decimal forms are accepted when the value is a whole
//     number: "1e8", "2.5e6", "1.0", "150e-1" (= 15).  "1.5" and "1e-1" are
//     refused: not integers.
//   - The value must fit in int64_t.  Callers check their own range.
//   - Refused: empty text, whitespace anywhere, hex ("0x10"), "inf", "nan",
//     a bare sign, trailing junk.
//   The value is computed exactly in integer arithmetic (no double
//   rounding), so "9007199254740993" is that number, not ...992.
//
// IntSyntax::Plain accepts only [+|-] digits -- what Go's strconv.Atoi
// accepts -- for values of dal_open options, which the DAL parses in Go:
// the shim must accept exactly what the DAL accepts for the same key.
//
// FLOATING POINT (parse_double)
//
//   [+|-] digits [ '.' digits ] [ ('e'|'E') [+|-] digits ]   (or ".5")
//
//   - Finite values only; no grouping, no hex, no "inf"/"nan", no
//     whitespace.  Out-of-range magnitudes (1e400) are refused.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace dalkit {

enum class IntSyntax {
  Human,  // grouping, decimal and scientific forms (above)
  Plain,  // [+|-] digits only
};

std::optional<int64_t> parse_int(std::string_view text, IntSyntax syntax = IntSyntax::Human) noexcept;
std::optional<double> parse_double(std::string_view text) noexcept;

}  // namespace dalkit
