package postgres

import (
	"context"
	"time"
)

// LeakConnection is the planted connection leak (plant_leak=connection,
// internal/planted): it opens one more connection to the primary, outside
// the pool, and keeps it open without ever using it. Outside the pool, so
// the pool is never exhausted by it and no request waits for a connection
// that will not come back; bounded by the server's max_connections
// instead: a connection the server refuses is simply not leaked (the
// plant cannot fail a request). It counts like the pool's connections
// (DAL_STAT_CONNECTIONS_OPEN, DAL_STAT_PG_CONNECTIONS) and its pid is one
// of the primary's sessions, so pg_stat_activity sees it too. The leaked
// connections are closed with the handle, so that a test process does not
// keep them on the server past it. Returns whether one was opened.
func (b *Backend) LeakConnection() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(b.cfg.ConnectTimeoutMs)*time.Millisecond)
	defer cancel()
	c, err := connectOutsidePool(ctx, b.primary)
	if err != nil {
		return false
	}
	b.planted = append(b.planted, c)
	b.primary.sessions.add(c.PID())
	connectionsOpen.Add(1)
	return true
}

// closePlanted closes the planted connections; b.mu is held.
func (b *Backend) closePlanted() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(answerGraceMs)*time.Millisecond)
	defer cancel()
	for _, c := range b.planted {
		b.primary.sessions.remove(c.PID())
		_ = c.Close(ctx)
		connectionsOpen.Add(-1)
	}
	b.planted = nil
}
