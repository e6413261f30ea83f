// workload_setup.hpp -- before the first sample: a workload's schema and seed
// (docs/workloads.md, "How a driver runs a workload", steps 1 and 2).
#pragma once

#include <cstdint>
#include <string>

#include "workload.hpp"

namespace dalstress {

// Run w's schema on its database through dalshim_exec, then send every seed
// request from this thread (as thread 0) and check each answer.  Not
// counted as queries: call it before dalmon_start.  Returns false with a
// message naming the failing step or request.
bool prepare_workload_database(int64_t handle, const Workload& w, std::string& err);

}  // namespace dalstress
