#include "planted_leak.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include "kv_options.hpp"
#include "numbers.hpp"

namespace dalshim::detail {

std::atomic<int> g_plant_handles{0};

namespace {

// Same scheme as the DAL's plants (native/internal/planted/planted.go): each
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

}  // namespace

bool split_plant_options(const char* options, PlantRequest& out, std::string& error) {
  PlantRequest r;
  if (options == nullptr) {
    r.forward_null = true;
    out = std::move(r);
    return true;
  }
  std::vector<dalkit::KvPair> pairs;
  if (!dalkit::parse_kv_options(options, pairs, error)) return false;
  auto find = [&](std::string_view key) {
    return std::find_if(pairs.begin(), pairs.end(), [&](const dalkit::KvPair& p) { return p.key == key; });
  };
  const auto layer = find("plant_leak");
  if (layer == pairs.end() || layer->value != "shim_malloc") {
    r.dal_options = options;  // nothing for the shim: the DAL judges it all
    out = std::move(r);
    return true;
  }
  // The same rule as the DAL's layers: plant_leak_bytes absent or 0 means
  // the default, a plain decimal integer in 0..kPlantMaxBytes otherwise.
  int64_t bytes = kPlantDefaultBytes;
  if (const auto b = find("plant_leak_bytes"); b != pairs.end()) {
    const auto n = dalkit::parse_int(b->value, dalkit::IntSyntax::Plain);
    if (!n || *n < 0 || *n > kPlantMaxBytes) {
      error = "option plant_leak_bytes=\"" + b->value + "\": expected an integer from 0 to " +
              std::to_string(kPlantMaxBytes);
      return false;
    }
    if (*n > 0) bytes = *n;
    pairs.erase(b);
  }
  pairs.erase(find("plant_leak"));
  r.shim_bytes = bytes;
  r.dal_options = dalkit::format_kv_options(pairs);
  out = std::move(r);
  return true;
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
#if defined(__SANITIZE_ADDRESS__)
  // Planted on request, so not a finding: LeakSanitizer would otherwise fail
  // every sanitized run that plants (the monitor judges it instead).
  __lsan_ignore_object(p);
#endif
  g_planted.fetch_add(n, std::memory_order_relaxed);
}

int64_t planted_bytes() noexcept { return g_planted.load(std::memory_order_relaxed); }

}  // namespace dalshim::detail
