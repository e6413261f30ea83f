// napi_check.hpp -- one macro for raw napi_* calls on the hot paths.
//
// The encoder and decoder call the C API directly (fewer temporaries than
// the C++ wrappers on paths that run millions of times).  Any failure -- a
// pending JS exception from a getter, or an engine error -- becomes a
// Napi::Error exception carrying the JS exception, which node-addon-api
// rethrows into JS at the entry point.
#pragma once

#include <napi.h>

#define DALKIT_NAPI(env, call)                          \
  do {                                                  \
    if ((call) != napi_ok) throw Napi::Error::New(env); \
  } while (0)
