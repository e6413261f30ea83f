// planted_leak.hpp -- the shim's own planted leak, for proving detection.
//
// dalshim_open accepts "plant_leak=shim_malloc;plant_leak_bytes=N" (the same
// keys the DAL uses for its layers, docs/leak-verdict.md): the shim takes
// those two options out of the string it forwards to dal_open and leaks N
// bytes of malloc memory per query through that handle (in 1 KiB blocks, so
// the average is exact even for N = 1). A run without the option pays one
// relaxed atomic load per query.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace dalshim::detail {

// Default and bound of plant_leak_bytes: the DAL's, documented in dal.h (OPEN).
constexpr int64_t kPlantDefaultBytes = 16;
constexpr int64_t kPlantMaxBytes = 1 << 20;

struct PlantRequest {
  // What to pass to dal_open: the caller's string unchanged when it holds
  // no shim plant (so the DAL sees exactly what the caller wrote), else the
  // remaining pairs.  forward_null: pass NULL (the caller passed NULL).
  std::string dal_options;
  bool forward_null = false;
  int64_t shim_bytes = 0;  // > 0: plant N bytes per query in the shim
};

// Splits the shim's plant option out of options (NULL = none), parsed with
// the kit's one k=v parser (common/kv_options.hpp), which has the DAL's
// grammar.  Other options, including the DAL's own plant layers, are
// forwarded untouched.  Returns false with a message for DAL_E_OPTIONS if
// the string is malformed or plant_leak_bytes is out of range.
bool split_plant_options(const char* options, PlantRequest& out, std::string& error);

void plant_register(int64_t handle, int64_t bytes);
void plant_forget(int64_t handle);
void plant_slow(int64_t handle) noexcept;

extern std::atomic<int> g_plant_handles;  // handles with a shim plant

inline void plant_per_query(int64_t handle) noexcept {
  if (g_plant_handles.load(std::memory_order_relaxed) != 0) [[unlikely]]
    plant_slow(handle);
}

// Bytes leaked so far by shim plants.
int64_t planted_bytes() noexcept;

}  // namespace dalshim::detail
