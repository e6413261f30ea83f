package engine

import (
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"dalkit/native/internal/postgres"

	"github.com/tinylib/msgp/msgp"
)

// clusterServer stops or starts a server of the test cluster
// (scripts/lib/pg-cluster.sh stop-server|start-server).
func clusterServer(t *testing.T, action, server string) {
	t.Helper()
	out, err := exec.Command("../../../scripts/lib/pg-cluster.sh", action, pgEnv(t, "DALKIT_PG_CLUSTER"), server).CombinedOutput()
	if err != nil {
		t.Fatalf("pg-cluster.sh %s %s: %v\n%s", action, server, err, out)
	}
}

// stopServer stops a server for the rest of the test, and starts it again
// when the test ends, whatever happened.
func stopServer(t *testing.T, server string) (restart func()) {
	clusterServer(t, "stop-server", server)
	started := false
	restart = func() {
		if !started {
			started = true
			clusterServer(t, "start-server", server)
		}
	}
	t.Cleanup(restart)
	return restart
}

// eventually polls f every 50 ms until it is true or 10 s have passed.
func eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !f(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s: %s", what)
		}
	}
}

// tryCount is the rows of table in db, or -1 when the call fails.
func tryCount(h *Handle, db, table string) int64 {
	r, err := h.Query(request(1, db, in(table), with("Fields", "count(*)")))
	if err != nil {
		return -1
	}
	defer r.Release()
	if rows, ok := decodedOK(r.Bytes())["r"].([]any); ok && len(rows) == 1 {
		return rows[0].([]any)[0].(int64)
	}
	return -1
}

// Reads outside Tx go to the replica, writes and Tx to the primary; a
// replica that stops is skipped and counted, and reads fall back to the
// primary; read_primary=1 gives the primary its turn.
func TestPostgresReplicaRouting(t *testing.T) {
	primary, replica := pgURL(t), pgEnv(t, "DALKIT_PG_REPLICA_URL")
	h := openPG(t, primary, "replicas="+replica+";max_query_ms=2000;connect_timeout_ms=1000")
	db := freshSchema(t)
	execPG(t, h, db, `CREATE TABLE t (n integer PRIMARY KEY); INSERT INTO t SELECT generate_series(1, 10)`)
	eventually(t, "the replica has the table", func() bool { return tryCount(h, db, "t") == 10 })

	// The primary stopped: reads still answer (from the replica), writes
	// and Tx fail with DAL_E_DATABASE, naming the primary.
	restartPrimary := stopServer(t, "primary")
	if n := tryCount(h, db, "t"); n != 10 {
		t.Fatalf("read with the primary down: %d", n)
	}
	wantCode(t, h, request(2, db, in("t"), with("Insert", obj{{"n", 11}})), EDatabase, "PostgreSQL at 127.0.0.1")
	wantCode(t, h, request(3, db, txOf([]cmd{in("t"), with("Insert", obj{{"n", 12}})})), EDatabase, "PostgreSQL at 127.0.0.1")
	restartPrimary()
	eventually(t, "writes after the primary restarted", func() bool {
		r, err := h.Query(request(4, db, in("t"), with("Insert", obj{{"n", 11}})))
		if err == nil {
			r.Release()
		}
		return err == nil
	})

	// The replica stopped: reads go to the primary, and the failure is
	// counted (once per retry period, not once per read).
	before := postgres.ReadCounters().ReplicaFailures
	skipsBefore := postgres.ReadFigures(false).ReplicaSkips
	restartReplica := stopServer(t, "replica")
	for i := 0; i < 20; i++ {
		if n := tryCount(h, db, "t"); n != 11 {
			t.Fatalf("read %d with the replica down: %d", i, n)
		}
	}
	if d := postgres.ReadCounters().ReplicaFailures - before; d < 1 || d > 2 {
		t.Errorf("replica failures counted: %d, want 1 (or 2 across a retry period)", d)
	}
	// DAL_STAT_PG_REPLICA_SKIPS counts the reads, each of which passed over
	// the one replica: the one that found it failing and those that found
	// it marked down.
	if d := postgres.ReadFigures(false).ReplicaSkips - skipsBefore; d != 20 {
		t.Errorf("reads that skipped the replica: %d, want 20", d)
	}
	restartReplica()
	time.Sleep(1100 * time.Millisecond) // past the replica's retry period

	// read_primary=1: with the replica stopped for good, every read still
	// answers, from the primary.
	hp := openPG(t, primary, "replicas="+replica+";read_primary=1;connect_timeout_ms=1000")
	eventually(t, "the restarted replica caught up", func() bool { return tryCount(h, db, "t") == 11 })
	for i := 0; i < 4; i++ {
		if n := tryCount(hp, db, "t"); n != 11 {
			t.Fatalf("read_primary read %d: %d", i, n)
		}
	}
	// The replica is back in the rotation: with the primary stopped, h's
	// reads answer again.
	stopServer(t, "primary")
	if n := tryCount(h, db, "t"); n != 11 {
		t.Fatalf("read from the restarted replica: %d", n)
	}
}

func TestPostgresReplicaOptions(t *testing.T) {
	primary := pgURL(t)
	for _, bad := range []string{"replicas=/tmp/x", "replicas=postgres://a|", "read_primary=2"} {
		if _, err := Open(primary, bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	_, err := Open(primary, "replicas=postgres://u:hidden-pw@127.0.0.1:1/x|/nope")
	if err == nil || strings.Contains(err.Error(), "hidden-pw") {
		t.Errorf("a bad replica list: %v", err)
	}
	_, err = Open(primary, "connect_timeout_ms=1000;replicas=postgres://u:hidden-pw@127.0.0.1:1/x?sslmode=disable")
	var e *Error
	if !asError(err, &e) || e.Code != EDatabase || !strings.Contains(e.Msg, "replica 127.0.0.1:1") || strings.Contains(e.Msg, "hidden-pw") {
		t.Errorf("an unreachable replica at open: %v", err)
	}
}

// The primary is stopped (immediate shutdown, as a crash) and restarted
// while writers and readers run: no caller waits longer than the limits
// allow, every acknowledged write is there afterwards, and the handle
// works again once the server is back.
func TestPostgresPrimaryKilledMidRun(t *testing.T) {
	const maxQueryMs, connectMs = 1000, 1000
	limit := time.Duration(maxQueryMs+2000+connectMs+1000) * time.Millisecond
	h := openPG(t, pgURL(t), "max_query_ms=1000;connect_timeout_ms=1000;pool_size=6")
	db := freshSchema(t)
	execPG(t, h, db, `CREATE TABLE kv (k bigint PRIMARY KEY)`)

	var (
		stop           atomic.Bool
		restartedAt    atomic.Int64
		mu             sync.Mutex
		acked          []int64
		failures       atomic.Int64
		longest        atomic.Int64
		ackedAfterBack atomic.Int64
	)
	timed := func(f func()) {
		start := time.Now()
		f()
		if d := int64(time.Since(start)); d > longest.Load() {
			longest.Store(d)
		}
	}
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := int64(0); !stop.Load(); i++ {
				k := int64(w)<<32 | i
				timed(func() {
					r, err := h.Query(request(1, db, in("kv"), with("Insert", obj{{"k", k}})))
					if err != nil {
						failures.Add(1)
						time.Sleep(20 * time.Millisecond)
						return
					}
					m := decodedOK(r.Bytes())
					r.Release()
					if m["e"] == nil && m["ra"] == int64(1) {
						mu.Lock()
						acked = append(acked, k)
						mu.Unlock()
						if at := restartedAt.Load(); at != 0 && time.Now().UnixNano() > at {
							ackedAfterBack.Add(1)
						}
					}
				})
			}
		}(w)
	}
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				timed(func() {
					if tryCount(h, db, "kv") < 0 {
						failures.Add(1)
						time.Sleep(20 * time.Millisecond)
					}
				})
			}
		}()
	}
	time.Sleep(700 * time.Millisecond)
	restart := stopServer(t, "primary")
	time.Sleep(800 * time.Millisecond)
	restart()
	restartedAt.Store(time.Now().UnixNano())
	eventually(t, "acknowledged writes after the restart", func() bool { return ackedAfterBack.Load() > 50 })
	stop.Store(true)
	wg.Wait()

	present := map[int64]bool{}
	m := result(t, h, request(2, db, in("kv"), with("Fields", "k")))
	for _, r := range rows(t, m) {
		present[r[0].(int64)] = true
	}
	lost := 0
	for _, k := range acked {
		if !present[k] {
			lost++
		}
	}
	t.Logf("%d writes acknowledged, %d present, %d lost; %d calls failed during the outage; longest call %v (limit %v)",
		len(acked), len(present), lost, failures.Load(), time.Duration(longest.Load()), limit)
	if lost != 0 {
		t.Errorf("%d acknowledged writes lost", lost)
	}
	if failures.Load() == 0 {
		t.Errorf("no call failed while the primary was down: the test did not exercise the outage")
	}
	if d := time.Duration(longest.Load()); d > limit {
		t.Errorf("a call took %v, longer than max_query_ms + 2 s + connect_timeout_ms + 1 s = %v", d, limit)
	}
}

// decodedOK decodes a response, or nil, for goroutines that cannot fail
// the test themselves.
func decodedOK(b []byte) map[string]any {
	v, _, err := msgp.ReadIntfBytes(b)
	if err != nil {
		return nil
	}
	m, _ := v.(map[string]any)
	return m
}
