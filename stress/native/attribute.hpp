// attribute.hpp -- dalstress --attribute: run under the allocation tracer
// (libdalkit_tracer.so, docs/attribution.md), so that the monitor names the
// shared object that holds native memory (native:<dso> layers).
//
// The tracer must see the process from its first allocation, which only
// LD_PRELOAD at exec time gives: dalstress executes itself again (same
// arguments, same pid, so signals and the exit code are its own) with the
// tracer appended to LD_PRELOAD.  The monitor then finds the tracer by
// itself (dlsym); dalstress never links it.
#pragma once

#include <string>

namespace dalstress {

// Returns only when the run goes on in this process: the tracer is already
// loaded (true), or it cannot be had (false, `error` says why and how to
// build it).  Otherwise it executes dalstress again and does not return.
bool run_under_tracer(char** argv, std::string& error);

}  // namespace dalstress
