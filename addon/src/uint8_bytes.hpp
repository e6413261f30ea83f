// uint8_bytes.hpp -- the bytes of a Uint8Array (or Buffer) argument.
//
// One napi_get_typedarray_info call, which fails on anything that is not a
// typed array, instead of node-addon-api's IsTypedArray, TypedArrayType and
// Uint8Array: those make three engine calls per argument, and queryInto
// reads two arguments per query (about 950 instructions of the ~3,000 Node
// spent per call; callgrind, docs/benchmarks.md).
#pragma once

#include <napi.h>

#include <cstdint>
#include <optional>
#include <span>

namespace dalkit {

// v's bytes if it is a Uint8Array (a Buffer is one), else nullopt.  A
// zero-length or detached array may come back with a null data pointer.
inline std::optional<std::span<uint8_t>> uint8_bytes(napi_env env, napi_value v) {
  napi_typedarray_type type;
  size_t length = 0;
  void* data = nullptr;
  if (napi_get_typedarray_info(env, v, &type, &length, &data, nullptr, nullptr) != napi_ok || type != napi_uint8_array)
    return std::nullopt;
  return std::span<uint8_t>(static_cast<uint8_t*>(data), length);
}

}  // namespace dalkit
