// dalshim/codec.hpp -- MessagePack encoding (the shim's one writer) and
// decoding of single values, with msgpack-c.
//
// Encoder is the only MessagePack writer in the shim: Query::encode,
// encode_value and the Node addon (which walks JS values straight into it)
// all write through it, so equal values encode to equal bytes on every
// path.  It wraps msgpack::packer over a Buffer it owns and reuses (no
// allocation once the buffer is warm).
//
// Forms written (msgpack-c's choices, which the DAL and msgpackr match):
//   integers  the smallest form that holds the value (positive fixint,
//             uint8..uint64, negative fixint, int8..int64), whether it was
//             written with int64() or uint64()
//   doubles   always float64, even when integral (never float32, never
//             an int: msgpack-c's pack_double would write 2.0 as 2)
//   str/bin   str8/16/32, bin8/16/32 by length
#pragma once

#ifndef MSGPACK_NO_BOOST
#define MSGPACK_NO_BOOST 1
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <msgpack.hpp>
#include <span>
#include <string_view>
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

// The MessagePack writer.  It owns a Buffer that clear() empties and keeps
// (keep one Encoder per thread or per caller and reuse it: no allocation
// once warm).  Writers append; nothing is ever rewritten.
//
// Lengths: MessagePack cannot express a str, bin, array or map of more
// than 2^32-1 elements.  Such a call writes nothing and makes ok() false
// until clear(), and every later write does nothing either, so a caller
// checks once at the end instead of after every call.  Memory exhaustion
// while growing the Buffer throws std::bad_alloc, as any std::vector does.
class Encoder {
 public:
  void nil() {
    if (ok_) pk().pack_nil();
  }
  void boolean(bool b) {
    if (ok_) b ? pk().pack_true() : pk().pack_false();
  }
  void int64(int64_t v) {
    if (ok_) pk().pack_int64(v);
  }
  void uint64(uint64_t v) {
    if (ok_) pk().pack_uint64(v);
  }
  // Always the 9-byte float64 form.  (msgpack::packer::pack_double writes
  // integral doubles such as 2.0 as integers, which would turn a REAL
  // into an INTEGER on the SQLite side.)
  void float64(double v) {
    if (!ok_) return;
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    char b[9];
    b[0] = static_cast<char>(0xcb);
    for (int i = 0; i < 8; ++i) b[1 + i] = static_cast<char>(bits >> (56 - 8 * i));
    buf_.write(b, sizeof b);
  }
  void str(std::string_view s) {
    if (!fits(s.size())) return;
    pk().pack_str(static_cast<uint32_t>(s.size()));
    pk().pack_str_body(s.data(), static_cast<uint32_t>(s.size()));
  }
  void bin(std::span<const uint8_t> b) {
    if (!fits(b.size())) return;
    pk().pack_bin(static_cast<uint32_t>(b.size()));
    pk().pack_bin_body(reinterpret_cast<const char*>(b.data()), static_cast<uint32_t>(b.size()));
  }
  // Exactly n elements (array) or n key/value pairs (map) must follow.
  void array_header(size_t n) {
    if (fits(n)) pk().pack_array(static_cast<uint32_t>(n));
  }
  void map_header(size_t n) {
    if (fits(n)) pk().pack_map(static_cast<uint32_t>(n));
  }
  // A Value tree (maps in insertion order), through the writers above.
  void value(const Value& v);

  // False once a length did not fit (see above): discard the bytes.
  bool ok() const noexcept { return ok_; }
  // Empty the buffer (capacity kept) and reset ok().
  void clear() noexcept {
    buf_.clear();
    ok_ = true;
  }
  std::span<const uint8_t> span() const noexcept { return buf_.span(); }
  const uint8_t* data() const noexcept { return buf_.data(); }
  size_t size() const noexcept { return buf_.size(); }
  Buffer& buffer() noexcept { return buf_; }

 private:
  // msgpack::packer holds only a reference to its stream; making one per
  // call costs nothing and keeps Encoder movable.
  msgpack::packer<Buffer> pk() noexcept { return msgpack::packer<Buffer>(buf_); }
  bool fits(size_t n) noexcept {
    if (n > std::numeric_limits<uint32_t>::max()) ok_ = false;
    return ok_;
  }
  Buffer buf_;
  bool ok_ = true;
};

// out.value(v), with a length that does not fit reported as
// DALSHIM_E_ARG (out.ok() is then false too).
Status encode_value(const Value& v, Encoder& out);

// Decode exactly one MessagePack value filling bytes (trailing bytes are an
// error).  Fails with DALSHIM_E_RESPONSE.
Result<Value> decode_value(std::span<const uint8_t> bytes);

}  // namespace dalshim
