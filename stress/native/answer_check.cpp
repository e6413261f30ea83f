#include "answer_check.hpp"

#include <cstdio>
#include <cstring>
#include <string_view>

#include "concat.hpp"

namespace dalstress {
namespace {

// One decoded MessagePack header (and, for scalars, the value).
struct Item {
  enum class T { Nil, Bool, Int, Float, Str, Bin, Array, Map, Ext } t = T::Nil;
  bool neg = false;  // Int: negative (value in i), else value in u
  uint64_t u = 0;
  int64_t i = 0;
  double f = 0;
  bool f32 = false;            // Float: encoded as float32
  const uint8_t* p = nullptr;  // Str/Bin/Ext: bytes
  uint32_t n = 0;              // Str/Bin/Ext: length; Array/Map: count
};

class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  bool ok() const { return ok_; }
  bool done() const { return p_ == end_; }
  size_t offset(const uint8_t* base) const { return static_cast<size_t>(p_ - base); }

  bool next(Item& it) {
    if (!need(1)) return false;
    const uint8_t b = *p_++;
    if (b <= 0x7f) return integer(it, b);
    if (b >= 0xe0) return negative(it, static_cast<int8_t>(b));
    if ((b & 0xf0) == 0x80) return header(it, Item::T::Map, b & 0x0f);
    if ((b & 0xf0) == 0x90) return header(it, Item::T::Array, b & 0x0f);
    if ((b & 0xe0) == 0xa0) return bytes(it, Item::T::Str, b & 0x1f);
    switch (b) {
      case 0xc0: it.t = Item::T::Nil; return true;
      case 0xc2:
      case 0xc3:
        it.t = Item::T::Bool;
        it.u = b & 1;
        return true;
      case 0xc4: return bytes(it, Item::T::Bin, be(1));
      case 0xc5: return bytes(it, Item::T::Bin, be(2));
      case 0xc6: return bytes(it, Item::T::Bin, be(4));
      case 0xca: {
        const uint32_t v = static_cast<uint32_t>(be(4));
        float f;
        std::memcpy(&f, &v, 4);
        it.t = Item::T::Float;
        it.f = f;
        it.f32 = true;
        return ok_;
      }
      case 0xcb: {
        const uint64_t v = be(8);
        it.t = Item::T::Float;
        std::memcpy(&it.f, &v, 8);
        it.f32 = false;
        return ok_;
      }
      case 0xcc: return integer(it, be(1));
      case 0xcd: return integer(it, be(2));
      case 0xce: return integer(it, be(4));
      case 0xcf: return integer(it, be(8));
      case 0xd0: return signed_(it, static_cast<int8_t>(be(1)));
      case 0xd1: return signed_(it, static_cast<int16_t>(be(2)));
      case 0xd2: return signed_(it, static_cast<int32_t>(be(4)));
      case 0xd3: return signed_(it, static_cast<int64_t>(be(8)));
      case 0xd9: return bytes(it, Item::T::Str, be(1));
      case 0xda: return bytes(it, Item::T::Str, be(2));
      case 0xdb: return bytes(it, Item::T::Str, be(4));
      case 0xdc: return header(it, Item::T::Array, be(2));
      case 0xdd: return header(it, Item::T::Array, be(4));
      case 0xde: return header(it, Item::T::Map, be(2));
      case 0xdf: return header(it, Item::T::Map, be(4));
      case 0xd4: return ext(it, 1);
      case 0xd5: return ext(it, 2);
      case 0xd6: return ext(it, 4);
      case 0xd7: return ext(it, 8);
      case 0xd8: return ext(it, 16);
      case 0xc7: return ext(it, be(1));
      case 0xc8: return ext(it, be(2));
      case 0xc9: return ext(it, be(4));
      default: return ok_ = false;  // 0xc1: never used
    }
  }

 private:
  bool need(size_t n) {
    if (static_cast<size_t>(end_ - p_) < n) ok_ = false;
    return ok_;
  }
  uint64_t be(size_t n) {
    if (!need(n)) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = (v << 8) | *p_++;
    return v;
  }
  bool integer(Item& it, uint64_t v) {
    it.t = Item::T::Int;
    it.neg = false;
    it.u = v;
    return ok_;
  }
  bool negative(Item& it, int64_t v) { return signed_(it, v); }
  bool signed_(Item& it, int64_t v) {
    if (v >= 0) return integer(it, static_cast<uint64_t>(v));
    it.t = Item::T::Int;
    it.neg = true;
    it.i = v;
    return ok_;
  }
  bool header(Item& it, Item::T t, uint64_t n) {
    it.t = t;
    it.n = static_cast<uint32_t>(n);
    return ok_;
  }
  bool bytes(Item& it, Item::T t, uint64_t n) {
    if (!ok_ || !need(n)) return false;
    it.t = t;
    it.p = p_;
    it.n = static_cast<uint32_t>(n);
    p_ += n;
    return true;
  }
  // An extension: its type byte and data, compared together.
  bool ext(Item& it, uint64_t n) {
    if (!ok_ || !need(1)) return false;
    const uint8_t* type = p_++;
    if (!bytes(it, Item::T::Ext, n)) return false;
    it.p = type;
    it.n = static_cast<uint32_t>(n + 1);
    return true;
  }

  const uint8_t* p_;
  const uint8_t* end_;
  bool ok_ = true;
};

std::string show(const Item& it) {
  char b[64];
  switch (it.t) {
    case Item::T::Nil: return "nil";
    case Item::T::Bool: return it.u ? "true" : "false";
    case Item::T::Int:
      if (it.neg)
        std::snprintf(b, sizeof b, "%lld", static_cast<long long>(it.i));
      else
        std::snprintf(b, sizeof b, "%llu", static_cast<unsigned long long>(it.u));
      return b;
    case Item::T::Float: std::snprintf(b, sizeof b, "%.17g (float%s)", it.f, it.f32 ? "32" : "64"); return b;
    case Item::T::Str: {
      std::string s(reinterpret_cast<const char*>(it.p), it.n > 60 ? 60 : it.n);
      return "\"" + s + (it.n > 60 ? "...\"" : "\"");
    }
    case Item::T::Bin: return "bin of " + std::to_string(it.n) + " bytes";
    case Item::T::Ext: return "ext of " + std::to_string(it.n) + " bytes";
    case Item::T::Array: return "array of " + std::to_string(it.n);
    case Item::T::Map: return "map of " + std::to_string(it.n);
  }
  return "?";
}

bool same_scalar(const Item& a, const Item& b) {
  if (a.t != b.t) return false;
  switch (a.t) {
    case Item::T::Nil: return true;
    case Item::T::Bool: return a.u == b.u;
    case Item::T::Int: return a.neg == b.neg && (a.neg ? a.i == b.i : a.u == b.u);
    case Item::T::Float: {
      // Expected values are float64; compare the float64 bits of both.
      uint64_t x, y;
      std::memcpy(&x, &a.f, 8);
      std::memcpy(&y, &b.f, 8);
      return x == y && a.f32 == b.f32;
    }
    case Item::T::Str:
    case Item::T::Bin:
    case Item::T::Ext: return a.n == b.n && std::memcmp(a.p, b.p, a.n) == 0;
    case Item::T::Array:
    case Item::T::Map: return a.n == b.n;
  }
  return false;
}

// Walks both encodings in step.  The path to the current value is kept as
// a stack of array indices and map keys (pointers into the expected bytes)
// and turned into text only when there is a difference to report, so a
// successful check allocates nothing.
struct Walk {
  static constexpr int kMaxDepth = 64;
  struct Seg {
    const uint8_t* key = nullptr;  // map key (expected's bytes), or null: array index
    uint32_t n = 0;                // key length, or the index
  };
  Reader got, exp;
  const uint8_t* got_base;
  std::string* diff;
  Seg segs[kMaxDepth];
  int depth = 0;

  bool fail(const std::string& why) {
    if (diff == nullptr) return false;
    std::string path;
    for (int i = 0; i < depth; ++i) {
      // concat, not "." + std::string: concat.hpp says why.
      if (segs[i].key != nullptr)
        path += dalkit::concat(".", std::string_view(reinterpret_cast<const char*>(segs[i].key), segs[i].n));
      else
        path += dalkit::concat("[", std::to_string(segs[i].n), "]");
    }
    *diff = dalkit::concat("at ", path.empty() ? std::string_view("the top") : std::string_view(path), ": ", why);
    return false;
  }
  bool bad_expected() { return fail("the expected value is not valid MessagePack (a dalstress bug)"); }
  bool bad_answer(const Item* e) {
    return fail("the answer is not valid MessagePack (truncated or bad byte near offset " +
                std::to_string(got.offset(got_base)) + ")" + (e ? ", expected " + show(*e) : std::string()));
  }

  bool value() {
    Item g, e;
    if (!exp.next(e)) return bad_expected();
    if (!got.next(g)) return bad_answer(&e);
    if (!same_scalar(g, e)) return fail("got " + show(g) + ", expected " + show(e));
    if (g.t != Item::T::Array && g.t != Item::T::Map) return true;
    if (depth == kMaxDepth) return fail("nested deeper than " + std::to_string(kMaxDepth) + " levels");
    Seg& seg = segs[depth++];
    for (uint32_t i = 0; i < g.n; ++i) {
      seg = Seg{nullptr, i};  // until the key is known
      if (g.t == Item::T::Map) {
        Item gk, ek;
        if (!exp.next(ek)) return bad_expected();
        if (!got.next(gk)) return bad_answer(&ek);
        if (!same_scalar(gk, ek)) {
          --depth;
          return fail("map entry " + std::to_string(i) + " has key " + show(gk) + ", expected " + show(ek));
        }
        if (ek.t == Item::T::Str) seg = Seg{ek.p, ek.n};
      }
      if (!value()) return false;
    }
    --depth;
    return true;
  }
};

}  // namespace

bool same_answer(const uint8_t* got, size_t got_n, const uint8_t* expected, size_t exp_n, std::string* diff) {
  if (got_n == exp_n && std::memcmp(got, expected, got_n) == 0) return true;
  Walk w{Reader(got, got_n), Reader(expected, exp_n), got, diff, {}, 0};
  if (!w.value()) return false;
  if (!w.got.done()) return w.fail(std::to_string(got_n - w.got.offset(got)) + " bytes after the answer's value");
  return true;
}

}  // namespace dalstress
