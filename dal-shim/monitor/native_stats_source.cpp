#include "native_stats_source.hpp"

#include <atomic>

namespace dalmon {

namespace {
// Atomic because the shim may register its source from one thread while a
// driver thread is already sampling.
std::atomic<NativeStatsSource*> g_source{nullptr};
}  // namespace

void set_native_stats_source(NativeStatsSource* source) noexcept { g_source.store(source, std::memory_order_release); }

NativeStatsSource* native_stats_source() noexcept { return g_source.load(std::memory_order_acquire); }

}  // namespace dalmon
