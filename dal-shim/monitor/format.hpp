// format.hpp -- how the monitor writes numbers for people.
//
// One place, so that the text report and the error sentences (which also
// reach the JSON) group and round numbers the same way.
#pragma once

#include <cstdint>
#include <string>

namespace dalmon {

// 1234567 -> "1,234,567"; -1234567 -> "-1,234,567".
std::string grouped(int64_t v);

// Bytes in MiB, rounded down like the seed study, grouped:
// 12100000000 -> "11,539".
std::string mib_grouped(double bytes);

// 76.586 s -> "1:16.586"; 3725.5 s -> "1:02:05.500".
std::string duration_text(double seconds);

// printf of one double, for short fixed formats ("%.1f MB").
std::string format_double(const char* printf_format, double v);

}  // namespace dalmon
