#include "planted_leak.hpp"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace dalshim::detail {

std::atomic<int> g_plant_handles{0};

namespace {

// Same scheme as the DAL's plants (native/internal/engine/planted.go): each
// query adds N bytes of debt, leaked in one block once it reaches
// kPlantBlock, so a plant of 1 byte leaks 1 byte per query on average rather
// than malloc's minimum chunk (32 bytes).
constexpr int64_t kPlantBlock = 1024;

struct Plant {
  int64_t bytes_per_query;
  int64_t debt = 0;
};

std::mutex g_mu;
std::unordered_map<int64_t, Plant> g_bytes_by_handle;
std::atomic<int64_t> g_planted{0};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

}  // namespace

PlantRequest split_plant_options(const char* options) {
  PlantRequest r;
  if (options == nullptr) return r;
  // Same grammar as dal_open: key=value pairs separated by ';' or ','.
  std::string part, bytes_value;
  bool shim_layer = false;
  std::vector<std::string> parts;
  for (char c : std::string(options)) {
    if (c == ';' || c == ',') {
      parts.push_back(part);
      part.clear();
    } else {
      part += c;
    }
  }
  parts.push_back(part);
  std::vector<std::string> forwarded;
  for (const auto& p : parts) {
    const auto eq = p.find('=');
    const std::string key = trim(p.substr(0, eq));
    const std::string value = eq == std::string::npos ? "" : trim(p.substr(eq + 1));
    if (key == "plant_leak" && value == "shim_malloc") {
      shim_layer = true;
      continue;
    }
    if (key == "plant_leak_bytes") {
      bytes_value = value;  // forwarded below unless the layer is the shim's
      continue;
    }
    if (!trim(p).empty()) forwarded.push_back(p);
  }
  if (shim_layer) {
    // The DAL rejects out-of-range values itself; the shim applies the same
    // default (16) and bound (1 MiB) as dal.h documents.
    char* end = nullptr;
    long long n = bytes_value.empty() ? 16 : std::strtoll(bytes_value.c_str(), &end, 10);
    if (!bytes_value.empty() && (*end != '\0' || n < 0 || n > (1 << 20))) n = -1;
    r.shim_bytes = n;
  } else if (!bytes_value.empty()) {
    forwarded.push_back("plant_leak_bytes=" + bytes_value);
  }
  for (size_t i = 0; i < forwarded.size(); ++i) r.dal_options += (i ? ";" : "") + forwarded[i];
  return r;
}

void plant_register(int64_t handle, int64_t bytes) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_bytes_by_handle.emplace(handle, Plant{bytes}).second) g_plant_handles.fetch_add(1, std::memory_order_relaxed);
}

void plant_forget(int64_t handle) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_bytes_by_handle.erase(handle) != 0) g_plant_handles.fetch_sub(1, std::memory_order_relaxed);
}

void plant_slow(int64_t handle) noexcept {
  int64_t n = 0;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_bytes_by_handle.find(handle);
    if (it == g_bytes_by_handle.end()) return;
    Plant& plant = it->second;
    plant.debt += plant.bytes_per_query;
    if (plant.debt < kPlantBlock) return;
    n = plant.debt;
    plant.debt = 0;
  }
  // Deliberately never freed; touched so that RSS sees it as well.
  void* p = std::malloc(static_cast<size_t>(n));
  if (p == nullptr) return;
  std::memset(p, 0xa5, static_cast<size_t>(n));
  g_planted.fetch_add(n, std::memory_order_relaxed);
}

int64_t planted_bytes() noexcept { return g_planted.load(std::memory_order_relaxed); }

}  // namespace dalshim::detail
