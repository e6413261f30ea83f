// grouped.hpp -- integers as the reports print them: 100,000,000.
#pragma once

#include <cstdint>
#include <string>

namespace dalstress {

inline std::string grouped(int64_t v) {
  const std::string d = std::to_string(v);
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) {
    if (i > 0 && (d.size() - i) % 3 == 0 && d[i - 1] != '-') s.push_back(',');
    s.push_back(d[i]);
  }
  return s;
}

}  // namespace dalstress
