package postgres

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Figures are the PostgreSQL backend's figures for dal_stats (dal.h,
// DAL_STAT_PG_*), summed over every open PostgreSQL handle of the process.
type Figures struct {
	Handles int // open PostgreSQL handles; 0: the other figures do not apply

	// The pools' own accounting (pgxpool.Stat), primary and replicas.
	PoolTotal, PoolIdle, PoolAcquired int64
	// Connections the DAL holds open to any server: the pools' and those
	// outside a pool (plant_leak=connection).
	Connections int64
	// ServerSessions is what the servers' pg_stat_activity says of those
	// connections: -1 when not asked for, or when a server did not answer.
	ServerSessions int64
	// Statements prepared on the servers and not deallocated, as the
	// connections' statement caches hold them (conn.go).
	Statements int64
	// ReplicaSkips counts reads that passed over a replica that was down.
	ReplicaSkips int64
}

// backends is every open PostgreSQL backend, for ReadFigures.
var backends = backendSet{m: make(map[*Backend]struct{})}

type backendSet struct {
	mu sync.Mutex
	m  map[*Backend]struct{}
}

func (s *backendSet) add(b *Backend) {
	s.mu.Lock()
	s.m[b] = struct{}{}
	s.mu.Unlock()
}

func (s *backendSet) remove(b *Backend) {
	s.mu.Lock()
	delete(s.m, b)
	s.mu.Unlock()
}

func (s *backendSet) list() []*Backend {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*Backend, 0, len(s.m))
	for b := range s.m {
		out = append(out, b)
	}
	return out
}

// ReadFigures returns the figures of every open handle. askServers asks
// each server's pg_stat_activity how many of the handle's connections it
// has (one round trip per server, on a connection of its own: see
// serverSessions); without it ServerSessions is -1.
func ReadFigures(askServers bool) Figures {
	f := Figures{ServerSessions: -1, Connections: connectionsOpen.Load(), Statements: statementsLive.Load(),
		ReplicaSkips: replicaSkips.Load()}
	list := backends.list()
	f.Handles = len(list)
	if askServers && len(list) > 0 {
		f.ServerSessions = 0
	}
	for _, b := range list {
		for _, s := range b.servers() {
			st := s.pool.Stat()
			f.PoolTotal += int64(st.TotalConns())
			f.PoolIdle += int64(st.IdleConns())
			f.PoolAcquired += int64(st.AcquiredConns())
		}
		if f.ServerSessions < 0 {
			continue
		}
		n, ok := b.serverSessions()
		if !ok {
			f.ServerSessions = -1 // one server unanswered: no figure rather than a low one
			continue
		}
		f.ServerSessions += n
	}
	return f
}

// serverSessions counts, on each server of b, the pg_stat_activity rows
// of the backend pids of b's connections to it. It asks on a connection
// of its own per server (statsConn), opened on the first call and kept:
// taking a pool connection would make the pool open one when every
// connection is busy, or wait for one, and move the figures it measures.
// The stats connection is not one of the handle's: its pid is not asked
// about, and it is counted in no figure. It runs only when dal_stats is
// asked for the figure (at the monitor's sample points).
func (b *Backend) serverSessions() (int64, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, true
	}
	var total int64
	for _, s := range b.servers() {
		n, ok := s.countSessions()
		if !ok {
			return 0, false
		}
		total += n
	}
	return total, true
}

// countSessions asks this server how many of s.sessions it has, on the
// stats connection (opened here when there is none, or it broke).
func (s *server) countSessions() (int64, bool) {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(),
		time.Duration(s.cfg.ConnectTimeoutMs+answerGraceMs)*time.Millisecond)
	defer cancel()
	if s.statsConn == nil || s.statsConn.IsClosed() {
		c, err := connectOutsidePool(ctx, s)
		if err != nil {
			return 0, false
		}
		s.statsConn = c
	}
	res := s.statsConn.ExecParams(ctx, "SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE pid = ANY($1::int4[])",
		[][]byte{[]byte(s.sessions.array())}, nil, nil, nil).Read()
	if res.Err != nil || len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
		_ = s.statsConn.Close(ctx)
		s.statsConn = nil
		return 0, false
	}
	n, err := strconv.ParseInt(string(res.Rows[0][0]), 10, 64)
	return n, err == nil
}

// connectOutsidePool opens a connection to s with the pool's settings
// (URL, timeouts, runtime parameters) but none of its hooks: it has no
// statement cache and is counted nowhere by itself.
func connectOutsidePool(ctx context.Context, s *server) (*pgconn.PgConn, error) {
	return pgconn.ConnectConfig(ctx, s.pool.Config().ConnConfig.Config.Copy())
}

func (s *server) closeStatsConn() {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	if s.statsConn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(answerGraceMs)*time.Millisecond)
		_ = s.statsConn.Close(ctx)
		cancel()
		s.statsConn = nil
	}
}
