// workload_backend.hpp -- the backends a workload runs on, and the one
// template that differs between them (docs/workloads.md, "Per backend"):
//
//   {"$backend": {"sqlite": A, "postgres": B}}
//
// anywhere in a workload file is A on SQLite and B on PostgreSQL.  It is
// resolved on the parsed JSON before anything else is read, so every other
// rule applies to the chosen branch; every backend must be given.  The JS
// drivers do the same (stress/js/workload-backend.js).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace dalstress {

// The backends by name; the first is the default.
const std::vector<std::string>& workload_backends();

// j with every {"$backend": {...}} replaced by backend's branch.  Throws
// WorkloadError for an unknown backend or a malformed $backend object.
nlohmann::ordered_json for_backend(const nlohmann::ordered_json& j, const std::string& backend);

}  // namespace dalstress
