// unpack_limits.hpp -- the bounds every MessagePack decode in the shim uses.
//
// msgpack-c reserves memory for a container from the count in its header
// before it reads a single element, so a 5-byte array32 header announcing
// 2^32-1 elements made it ask for 64 GiB (found by tests/fuzz; the input is
// kept as corpus/response/regression-huge-array32-header).  Every element
// takes at least one byte of input (a map entry two), so no honest message
// can announce more elements than it has bytes left: bounding each count by
// the input size refuses such headers up front, at no cost to valid input.
#pragma once

#include <cstddef>

#include "dalshim/codec.hpp"  // msgpack.hpp with the project's configuration

namespace dalshim::detail {

// Deeper than any response (a row value is a scalar) or request (the DAL
// refuses nesting over 64 levels) can be.
inline constexpr std::size_t kMaxDecodeDepth = 128;

inline msgpack::unpack_limit unpack_limits_for(std::size_t input_bytes) noexcept {
  return msgpack::unpack_limit(input_bytes, input_bytes / 2, input_bytes, input_bytes, input_bytes, kMaxDecodeDepth);
}

}  // namespace dalshim::detail
