package postgres

import "sync/atomic"

// Process-wide counters of every PostgreSQL handle, for dal_stats.
var (
	connectionsOpen atomic.Int64 // connections to a server, open
	statementsLive  atomic.Int64 // statements prepared on a server and not deallocated
	replicaFailures atomic.Int64 // times a read replica's connection failed and reads skipped it
	replicaSkips    atomic.Int64 // reads that passed over a replica that was down (marked down, or failing as they tried it)
)

// Counters is a snapshot of the backend's counters.
type Counters struct {
	ConnectionsOpen, StatementsLive, ReplicaFailures int64
}

// ReadCounters returns the current counters.
func ReadCounters() Counters {
	return Counters{ConnectionsOpen: connectionsOpen.Load(), StatementsLive: statementsLive.Load(), ReplicaFailures: replicaFailures.Load()}
}
