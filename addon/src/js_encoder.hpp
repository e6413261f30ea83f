// js_encoder.hpp -- JS values -> MessagePack, through the shim's Encoder.
//
// The addon walks JS values straight into the shim's one MessagePack writer
// (dalshim::Encoder): no JSON round trip and no intermediate Value tree.
// The accepted values and the bytes written are exactly those of
// lib/codec.js (the JS API's msgpackr codec), so one query encodes to the
// same bytes on every path (tests/node/encoding.test.js):
//
//   null -> nil; booleans; numbers that are safe integers -> the smallest
//   int form, other finite numbers -> float64; strings -> str; Uint8Array
//   and Buffer -> bin; BigInt within int64/uint64 -> int64/uint64; arrays;
//   plain objects (prototype Object.prototype or null) -> maps, keys in
//   Object.keys() order, properties whose value is undefined skipped (as
//   JSON.stringify does).
//
// Refused with a TypeError naming the path ("Find.args[0].b.$gt: ..."):
// functions, symbols, undefined inside arrays, cycles, containers nested
// deeper than kMaxDepth inside one command's args, non-finite numbers,
// BigInts outside int64/uint64, and any other object (Map, Date, class
// instances, other typed arrays, ArrayBuffer).  Nothing is sent when a value
// is refused.
#pragma once

#include <napi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "dalshim.hpp"

namespace dalkit {

// Containers nested deeper than this inside one command's args are refused
// (the args array itself is depth 0).  The DAL's own limit is 64 levels for
// the whole request (docs/protocol.md), which it enforces itself.
inline constexpr int kMaxDepth = 64;

class JsEncoder {
 public:
  // Object.prototype, Object.keys, Array.isArray and Object.getPrototypeOf
  // of this environment.
  JsEncoder(napi_env env, dalshim::Encoder& out, napi_value object_prototype, napi_value object_keys,
            napi_value array_is_array, napi_value object_get_prototype_of)
      : env_(env),
        out_(out),
        object_prototype_(object_prototype),
        object_keys_(object_keys),
        array_is_array_(array_is_array),
        object_get_prototype_of_(object_get_prototype_of) {}

  // {id, db, commands: [{method, args}, ...]} from the builder's parallel
  // arrays (lib/builder.js: query.methods, query.args).
  void request(uint64_t id, napi_value db, napi_value methods, napi_value args);

  // One value at the given path (for encode() of arbitrary values).
  void value(napi_value v, const std::string& root);

 private:
  // A path segment: an array index, or an object key (napi string).
  struct Segment {
    int64_t index;  // >= 0: [index]; -1: .key
    napi_value key;
  };

  void write(napi_value v, int depth);
  void write_array(napi_value v, int depth);
  void write_object(napi_value v, int depth);
  // fn(arg) for the cached JS built-ins; and a JS boolean's value.
  void call_unary(napi_value fn, napi_value arg, napi_value& result);
  bool is_true(napi_value b);
  void enter(napi_value container, int depth);
  void leave() { ancestors_.pop_back(); }
  std::string utf8(napi_value s);
  void write_string(napi_value s);
  [[noreturn]] void refuse(const std::string& what);
  std::string path() const;
  std::string describe(napi_value object);

  napi_env env_;
  dalshim::Encoder& out_;
  napi_value object_prototype_;
  napi_value object_keys_;
  napi_value array_is_array_;
  napi_value object_get_prototype_of_;
  // The path's root: "<method>.args" from root_method_ (a JS string, turned
  // into text only when a value is refused), or root_ when that is null.
  napi_value root_method_ = nullptr;
  std::string root_;
  std::vector<Segment> path_;
  std::vector<napi_value> ancestors_;  // containers being written (cycle check)
  std::vector<napi_value> entries_;    // gathered key/value pairs, used as a stack
  std::string text_;                   // reused for strings that do not fit the stack buffer
};

}  // namespace dalkit
