// accounting.hpp (internal) -- process-wide counters behind dalshim_stats().
//
// The per-call counters are sharded: each thread adds to one of kShards
// cache-line-sized slots (relaxed atomics), so eight threads hammering one
// handle do not bounce a single cache line; readers sum the slots.
#pragma once

#include <atomic>
#include <cstdint>

namespace dalshim::detail {

enum Counter : int { kCalls, kRequestBytes, kResponseBytes, kErrors, kCounterCount };

void count(Counter c, int64_t delta) noexcept;
inline void count_call(uint64_t req_bytes) noexcept {
  count(kCalls, 1);
  count(kRequestBytes, static_cast<int64_t>(req_bytes));
}
int64_t counter(Counter c) noexcept;

// Handles opened through the shim.  Closed handles are remembered (8 bytes
// each; the DAL never reuses a handle) so that a call on a closed handle can
// be reported as DALSHIM_E_CLOSED rather than "never issued".  Only consulted
// on failure paths, never on the hot path.
void handle_opened(int64_t h);
void handle_closed(int64_t h);
bool handle_was_closed(int64_t h);
int64_t handles_open() noexcept;

}  // namespace dalshim::detail
