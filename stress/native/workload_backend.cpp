#include "workload_backend.hpp"

#include <algorithm>

#include "workload_error.hpp"

namespace dalstress {

namespace {

using json = nlohmann::ordered_json;

constexpr const char* kKey = "$backend";

bool known(const std::string& b) {
  const auto& all = workload_backends();
  return std::find(all.begin(), all.end(), b) != all.end();
}

std::string backend_list() {
  std::string s;
  for (const auto& b : workload_backends()) s += (s.empty() ? "" : ", ") + b;
  return s;
}

json select(const json& j, const std::string& backend, const std::string& at) {
  if (j.is_array()) {
    json out = json::array();
    for (size_t i = 0; i < j.size(); ++i) out.push_back(select(j[i], backend, at + "[" + std::to_string(i) + "]"));
    return out;
  }
  if (!j.is_object()) return j;
  if (j.contains(kKey)) {
    const std::string where = at.empty() ? "(the file)" : at;
    if (j.size() != 1) throw WorkloadError(where + ": " + kKey + " takes no other key");
    const json& branches = j[kKey];
    if (!branches.is_object()) throw WorkloadError(where + "." + kKey + ": expected an object of " + backend_list());
    for (const auto& [k, v] : branches.items())
      if (!known(k))
        throw WorkloadError(where + "." + kKey + "." + k + ": unknown backend (expected " + backend_list() + ")");
    for (const auto& b : workload_backends())
      if (!branches.contains(b)) throw WorkloadError(where + "." + kKey + "." + b + ": missing");
    return select(branches[backend], backend, where + "." + kKey + "." + backend);
  }
  json out = json::object();
  for (const auto& [k, v] : j.items()) out[k] = select(v, backend, at.empty() ? k : at + "." + k);
  return out;
}

}  // namespace

const std::vector<std::string>& workload_backends() {
  static const std::vector<std::string> all = {"sqlite", "postgres"};
  return all;
}

json for_backend(const json& j, const std::string& backend) {
  if (!known(backend)) throw WorkloadError("unknown backend \"" + backend + "\" (expected " + backend_list() + ")");
  return select(j, backend, "");
}

}  // namespace dalstress
