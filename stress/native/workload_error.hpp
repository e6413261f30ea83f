// workload_error.hpp -- the one error type of workload loading and expansion.
#pragma once

#include <stdexcept>
#include <string>

namespace dalstress {

// A workload file that cannot be run as written: bad JSON, a missing or
// unknown key, an unknown variable, a division by zero.  Thrown while the
// workload is loaded or first expanded, before the first query, so that
// dalstress exits 2 with the message instead of sending a wrong request.
class WorkloadError : public std::runtime_error {
 public:
  explicit WorkloadError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace dalstress
