package engine

import (
	"testing"

	"dalkit/native/internal/postgres"
)

// dal_stats' PostgreSQL figures (dal.h, DAL_STAT_PG_*) follow a handle's
// pool, and the server's pg_stat_activity sees the same connections.
func TestPostgresFigures(t *testing.T) {
	before := postgres.ReadFigures(true)
	if before.Handles == 0 && before.ServerSessions != -1 {
		t.Fatalf("no handle open, yet a server figure: %+v", before)
	}
	h := openPG(t, pgURL(t), "pool_size=3")
	db := freshSchema(t)
	execPG(t, h, db, "CREATE TABLE t (a integer)")
	for i := 0; i < 20; i++ {
		result(t, h, request(1, db, in("t"), with("Find", obj{{"a", i}})))
	}
	f := postgres.ReadFigures(true)
	if f.Handles != before.Handles+1 {
		t.Fatalf("%d handles, want %d", f.Handles, before.Handles+1)
	}
	// One request at a time: the pool has opened one connection (open's
	// ping), idle now; the server has exactly the connections the DAL holds.
	if got := f.PoolTotal - before.PoolTotal; got != 1 || f.PoolIdle-before.PoolIdle != 1 || f.PoolAcquired != before.PoolAcquired {
		t.Errorf("pool: total +%d idle +%d acquired +%d, want +1 +1 +0", got, f.PoolIdle-before.PoolIdle, f.PoolAcquired-before.PoolAcquired)
	}
	if f.Connections-before.Connections != 1 || f.ServerSessions != f.Connections {
		t.Errorf("connections %d (before %d), server sessions %d: want one more, and the server to see them all", f.Connections, before.Connections, f.ServerSessions)
	}
	if f.Statements-before.Statements != 1 {
		t.Errorf("%d more statements prepared, want 1 (one request shape)", f.Statements-before.Statements)
	}
	if postgres.ReadFigures(false).ServerSessions != -1 {
		t.Error("the server figure was asked for without askServers")
	}
}

// The connection plant opens one connection every plant_leak_every
// queries outside the pool, which the server sees; closing the handle
// closes them.
func TestPostgresPlantedConnectionLeak(t *testing.T) {
	url := pgURL(t)
	id, err := Open(url, "plant_leak=connection;plant_leak_every=10;pool_size=2")
	if err != nil {
		t.Fatal(err)
	}
	h, _ := Lookup(id)
	before := postgres.ReadFigures(true)
	db := freshSchema(t)
	for i := 0; i < 50; i++ {
		result(t, h, request(1, db, in("nosuch")))
	}
	f := postgres.ReadFigures(true)
	if got := f.Connections - before.Connections; got != 5 {
		t.Errorf("%d connections leaked in 50 queries, want 5", got)
	}
	if got := f.ServerSessions - before.ServerSessions; got != 5 {
		t.Errorf("the server has %d more sessions, want 5", got)
	}
	if f.PoolTotal != before.PoolTotal {
		t.Errorf("the pool grew from %d to %d: the plant is outside it", before.PoolTotal, f.PoolTotal)
	}
	if err := Close(id); err != nil {
		t.Fatal(err)
	}
	// The pool's connection and the planted ones are closed with it.
	eventually(t, "the handle's connections closed", func() bool {
		return postgres.ReadFigures(false).Connections == before.Connections-1
	})
}
