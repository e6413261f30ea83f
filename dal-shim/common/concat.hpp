// concat.hpp -- the kit's one way to build a message from pieces.
//
// Why not `"literal" + std::string(...)`: operator+(const char*,
// std::string&&) inserts at the front of the right-hand string, and GCC 12
// at -O3 (a Release build) reports that insert as an overlapping copy
// (-Wrestrict, a false positive: GCC bug 105329 and its duplicates).  With
// the kit's -Werror that broke every Release build.  Appending to a fresh
// string is what the operator chain means anyway, and it is warning-free
// with every compiler and optimisation level.
#pragma once

#include <string>
#include <string_view>

namespace dalkit {

// The pieces (anything a std::string_view is made from) joined, in order.
template <typename... Parts>
std::string concat(const Parts&... parts) {
  std::string out;
  out.reserve((std::string_view(parts).size() + ... + 0));
  (out.append(std::string_view(parts)), ...);
  return out;
}

}  // namespace dalkit
