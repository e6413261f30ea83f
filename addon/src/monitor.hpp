// monitor.hpp -- the monitor's dalmon_* C ABI (dalmonitor.h), exposed to JS
// for the stress driver (stress/js/).  The same process-wide monitor that
// dalstress and the FFI drivers call: one measurement and one verdict.
//
// Runs are process-wide, so a worker_thread may count and record latencies
// for a run started on the main thread (those calls are lock-free).
// A negative return code becomes an Error whose `code` is the DALMON_E_*
// name and whose message is dalmon_last_error().
#pragma once

#include <napi.h>

namespace dalkit {

Napi::Object monitor_exports(Napi::Env env);

}  // namespace dalkit
