package engine

import (
	"sync/atomic"

	"dalkit/native/internal/planted"
	"dalkit/native/internal/postgres"
)

// Process-wide counters for dal_stats. Atomics, because every handle and
// thread updates them and the monitor reads them while queries run. These
// are the SQLite backend's; ReadCounters adds the PostgreSQL backend's
// (internal/postgres/counters.go).
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
	pg := postgres.ReadCounters()
	return Counters{
		ConnectionsOpen: connectionsOpen.Load() + pg.ConnectionsOpen,
		StatementsLive:  statementsLive.Load() + pg.StatementsLive,
		Queries:         queriesDone.Load(),
		PlantedBytes:    planted.Total(),
		HandlesLive:     int64(registry.count()),
	}
}
