#include "external_memory.hpp"

namespace dalkit {
namespace {
thread_local int64_t t_external = 0;
}  // namespace

void adjust_external(Napi::Env env, int64_t delta) {
  if (delta == 0) return;
  t_external += delta;
  Napi::MemoryManagement::AdjustExternalMemory(env, delta);
}

void forget_external(int64_t bytes) noexcept { t_external -= bytes; }

int64_t external_bytes() noexcept { return t_external; }

}  // namespace dalkit
