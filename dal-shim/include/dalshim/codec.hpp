// dalshim/codec.hpp -- MessagePack encoding and decoding with msgpack-c.
//
// Encoding writes through msgpack::packer into a Buffer that is cleared and
// reused (no allocation once warm).  Decoding uses msgpack::unpack into a
// zone; Value trees are built from msgpack::object.
#pragma once

#ifndef MSGPACK_NO_BOOST
#define MSGPACK_NO_BOOST 1
#endif

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "dalshim/error.hpp"
#include "dalshim/value.hpp"

namespace dalshim {

// A growable byte buffer implementing write(const char*, size_t), the sink
// interface msgpack::packer needs.  clear() keeps the capacity.
class Buffer {
 public:
  void write(const char* p, size_t n) { bytes_.insert(bytes_.end(), p, p + n); }
  void clear() noexcept { bytes_.clear(); }
  const uint8_t* data() const noexcept { return bytes_.data(); }
  uint8_t* data() noexcept { return bytes_.data(); }
  size_t size() const noexcept { return bytes_.size(); }
  std::span<const uint8_t> span() const noexcept { return {bytes_.data(), bytes_.size()}; }
  std::vector<uint8_t>& vec() noexcept { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

// Append the MessagePack encoding of v to out.
void encode_value(const Value& v, Buffer& out);

// Decode exactly one MessagePack value filling bytes (trailing bytes are an
// error).  Fails with DALSHIM_E_RESPONSE.
Result<Value> decode_value(std::span<const uint8_t> bytes);

}  // namespace dalshim
