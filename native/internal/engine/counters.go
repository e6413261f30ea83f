package engine

import (
	"sync/atomic"

	"dalkit/native/internal/planted"
)

// Process-wide counters for dal_stats. Atomics, because every handle and
// thread updates them and the monitor reads them while queries run.
var (
	connectionsOpen atomic.Int64
	statementsLive  atomic.Int64
	queriesDone     atomic.Int64
)

// Counters is a snapshot of the engine's counters.
type Counters struct {
	ConnectionsOpen, StatementsLive, Queries, PlantedBytes, HandlesLive int64
}

// ReadCounters returns the current counters.
func ReadCounters() Counters {
	return Counters{
		ConnectionsOpen: connectionsOpen.Load(),
		StatementsLive:  statementsLive.Load(),
		Queries:         queriesDone.Load(),
		PlantedBytes:    planted.Total(),
		HandlesLive:     int64(registry.count()),
	}
}
