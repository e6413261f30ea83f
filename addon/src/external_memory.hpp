// external_memory.hpp -- native memory the addon holds on behalf of JS.
//
// Every such byte (the sync scratch buffers, a queryInto response held for
// takePending, the buffers of async queries in flight) is reported to V8
// with AdjustExternalMemory, so that it counts toward GC pressure (napi-rs#372:
// unreported native memory never triggers a collection).  V8 does not show
// those amounts in process.memoryUsage().external (measured with Node 20), so
// the addon also keeps its own tally per JS thread -- one environment per
// thread -- which externalBytes() returns and the stress driver adds to the
// js_external layer.  Thread-local rather than instance data: finalizers may
// run while the environment is being torn down, after its instance data.
#pragma once

#include <napi.h>

#include <cstdint>

namespace dalkit {

void adjust_external(Napi::Env env, int64_t delta);
// Drop bytes from the tally only (the environment is ending).
void forget_external(int64_t bytes) noexcept;
int64_t external_bytes() noexcept;

}  // namespace dalkit
