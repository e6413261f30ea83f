// MsgpackWriter: appends MessagePack in exactly the formats the DAL's
// response encoder uses (native/internal/wire/encode.go, tinylib/msgp), so an
// expected answer can be compared with the DAL's bytes by memcmp in the timed
// loop. msgp writes a non-negative int64 above 127 as int16/32/64 (0xd1..0xd3),
// not as uint, and the rows array "r" always with an array32 header; a
// canonical encoder (msgpack-c) would differ there. If the DAL's encoding ever
// changes, answer_check.cpp still accepts an answer whose decoded value is
// equal, and the benchmark reports that it had to.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace floorbench {

class MsgpackWriter {
 public:
  std::vector<uint8_t>& bytes() { return out_; }

  MsgpackWriter& map(uint32_t n) { return header(n, 0x80, 0xde, 0xdf); }
  MsgpackWriter& array(uint32_t n) { return header(n, 0x90, 0xdc, 0xdd); }
  // The rows array of a rows response: always array32, its count patched in
  // when the rows are done (native/internal/sqlite/rows.c).
  MsgpackWriter& array32(uint32_t n) {
    out_.push_back(0xdd);
    return be(n, 4);
  }
  MsgpackWriter& nil() {
    out_.push_back(0xc0);
    return *this;
  }
  MsgpackWriter& str(std::string_view s) {
    const auto n = static_cast<uint32_t>(s.size());
    if (n <= 31) {
      out_.push_back(static_cast<uint8_t>(0xa0 | n));
    } else if (n <= 0xff) {
      out_.push_back(0xd9);
      be(n, 1);
    } else if (n <= 0xffff) {
      out_.push_back(0xda);
      be(n, 2);
    } else {
      out_.push_back(0xdb);
      be(n, 4);
    }
    out_.insert(out_.end(), s.begin(), s.end());
    return *this;
  }
  // msgp.AppendUint64: the smallest unsigned format (request ids).
  MsgpackWriter& uint(uint64_t v) {
    if (v <= 0x7f) {
      out_.push_back(static_cast<uint8_t>(v));
      return *this;
    }
    if (v <= 0xff) return tagged(0xcc, v, 1);
    if (v <= 0xffff) return tagged(0xcd, v, 2);
    if (v <= 0xffffffffu) return tagged(0xce, v, 4);
    return tagged(0xcf, v, 8);
  }
  // msgp.AppendInt64: positive fixint, else the smallest signed format.
  MsgpackWriter& integer(int64_t v) {
    if (v >= 0 && v <= 127) {
      out_.push_back(static_cast<uint8_t>(v));
      return *this;
    }
    if (v < 0 && v >= -32) {
      out_.push_back(static_cast<uint8_t>(v));
      return *this;
    }
    const auto u = static_cast<uint64_t>(v);
    if (v >= INT8_MIN && v <= INT8_MAX) return tagged(0xd0, u, 1);
    if (v >= INT16_MIN && v <= INT16_MAX) return tagged(0xd1, u, 2);
    if (v >= INT32_MIN && v <= INT32_MAX) return tagged(0xd2, u, 4);
    return tagged(0xd3, u, 8);
  }
  MsgpackWriter& real(double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    return tagged(0xcb, bits, 8);
  }

 private:
  MsgpackWriter& header(uint32_t n, uint8_t fix, uint8_t tag16, uint8_t tag32) {
    if (n <= 15) {
      out_.push_back(static_cast<uint8_t>(fix | n));
      return *this;
    }
    if (n <= 0xffff) return tagged(tag16, n, 2);
    return tagged(tag32, n, 4);
  }
  MsgpackWriter& tagged(uint8_t tag, uint64_t v, int width) {
    out_.push_back(tag);
    return be(v, width);
  }
  MsgpackWriter& be(uint64_t v, int width) {
    for (int i = width - 1; i >= 0; --i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }

  std::vector<uint8_t> out_;
};

}  // namespace floorbench
