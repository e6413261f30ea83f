// stats_fallback.hpp -- native figures for the monitor when the shim has not
// registered a stats source of its own.
//
// docs/leak-verdict.md: at each dalmon_sample the monitor reads Go heap,
// SQLite memory, live buffers and statements through the NativeStatsSource
// "the shim registered", forcing the Go GC (DAL_STATS_FORCE_GC).  If
// libdalshim.so does not register one, every native layer would be "n/a".
// Then dalstress registers this source, built only on the public
// dalshim_stats() C ABI with DALSHIM_STATS_FORCE_GC.  If the shim registers
// its own, it is used and this one stays unused.
#pragma once

namespace dalstress {

// Returns "shim" if a source was already registered, "dalstress" if this
// fallback was installed.  Call after the DAL is loaded.
const char* ensure_native_stats_source();
// Unregister the fallback, if it was installed.
void remove_native_stats_fallback();

}  // namespace dalstress
