// accounting.hpp (internal) -- process-wide counters behind dalshim_stats().
//
// The per-call counters are sharded: each thread adds to one of kShards
// cache-line-sized slots (relaxed atomics), so eight threads hammering one
// handle do not bounce a single cache line; readers sum the slots.
#pragma once

#include <cstdint>

namespace dalshim::detail {

enum Counter : int { kCalls, kRequestBytes, kResponseBytes, kErrors, kCounterCount };

// One query call with req_bytes of request (one slot lookup for both).
void count_call(uint64_t req_bytes) noexcept;
void count_response_bytes(int64_t n) noexcept;
void count_error() noexcept;
int64_t counter(Counter c) noexcept;

// Handles opened through the shim.  "Closed" is derived, not remembered:
// dal.h handles are positive, increasing and never reused, so a handle in
// 1..highest-issued that the DAL rejects with DAL_E_HANDLE was issued and
// has been closed (by the shim or by a direct dal_close).  The highest
// handle any dalshim_open / Database::open received is all that is kept.
void handle_opened(int64_t h) noexcept;
void handle_closed() noexcept;
bool handle_was_closed(int64_t h) noexcept;
int64_t handles_open() noexcept;

}  // namespace dalshim::detail
