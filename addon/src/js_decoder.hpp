// js_decoder.hpp -- a protocol response -> JS values.
//
// Works on the shim's zero-copy view of the response (dalshim::parse_response
// over msgpack::object): cells go straight from the MessagePack bytes to JS
// values, with no Value tree in between.
//
//   rows   -> Shape::Objects: [{col: value, ...}, ...]
//             Shape::Arrays:  {columns: [name, ...], rows: [[value, ...], ...]}
//   exec   -> {rowsAffected, lastInsertId}
//   "e"    -> DalError DALSHIM_E_SQL (requestId = the response's id)
//   other  -> DalError DALSHIM_E_RESPONSE
//
// Values: nil -> null, booleans, integers -> number (BigInt beyond 2^53, as
// ffi/codec.js decodes them), float -> number, str -> string, bin -> Buffer
// (a copy in JS-owned memory: no external buffers, which the V8 memory cage
// rejects), arrays and maps recursively.
#pragma once

#include <napi.h>

#include <cstdint>
#include <span>

namespace dalkit {

class Addon;

enum class Shape : int { Objects = 0, Arrays = 1, Exec = 2 };

// The JS result, or the DalError to throw / reject with: an SQL error, an
// invalid response, a response of the other kind than `shape` asks for, or
// an id other than expected_id.  Errors are returned, not thrown: the
// reference workload answers every query with an SQL error, and a C++
// exception per query would cost more than the rest of the decode.
struct Decoded {
  Napi::Value value;
  bool failed = false;
};
Decoded decode_response(Napi::Env env, const Addon& addon, std::span<const uint8_t> bytes, Shape shape,
                        uint64_t expected_id);

}  // namespace dalkit
