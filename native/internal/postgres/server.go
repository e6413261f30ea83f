package postgres

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"dalkit/native/internal/status"
)

// server is one PostgreSQL server of a handle, the primary or a read
// replica, with its pool of connections.
type server struct {
	cfg     *Config
	where   string // host:port/database, for messages
	secrets secrets
	pool    *pgxpool.Pool
	replica bool
	// downUntil is when a replica whose connection failed is tried again
	// (unix nanoseconds); until then reads skip it.
	downUntil atomic.Int64
	// sessions are the server processes (backend pids) of the connections
	// the DAL holds open to this server, the pool's and any planted one:
	// what pg_stat_activity is asked about (figures.go).
	sessions pidSet
	// statsConn asks this server's pg_stat_activity about sessions, for
	// dal_stats (figures.go); nil until first asked.
	statsMu   sync.Mutex
	statsConn *pgconn.PgConn
}

// pidSet is a set of backend pids, locked: the pool's hooks run on any
// goroutine.
type pidSet struct {
	mu   sync.Mutex
	pids map[uint32]struct{}
}

func (p *pidSet) add(pid uint32) {
	p.mu.Lock()
	if p.pids == nil {
		p.pids = make(map[uint32]struct{})
	}
	p.pids[pid] = struct{}{}
	p.mu.Unlock()
}

func (p *pidSet) remove(pid uint32) {
	p.mu.Lock()
	delete(p.pids, pid)
	p.mu.Unlock()
}

// array is the set as a PostgreSQL int4[] literal in text form: "{1,2}".
func (p *pidSet) array() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := make([]byte, 0, 2+8*len(p.pids))
	b = append(b, '{')
	for pid := range p.pids {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, uint64(pid), 10)
	}
	return string(append(b, '}'))
}

// replicaRetry is how long reads skip a replica after its connection
// failed.
const replicaRetry = time.Second

// openServer makes the pool for url and connects once, so that an
// unreachable server or a refused login fails dal_open.
func openServer(cfg *Config, url string, replica bool) (*server, error) {
	s := &server{cfg: cfg, secrets: secretsOf(url), replica: replica}
	pc, err := cfg.poolConfig(url, s.secrets)
	if err != nil {
		return nil, err
	}
	// The pool's hooks (conn.go) keep the connection's state and the
	// process-wide counters; these add the pid to the server's sessions.
	connected, closing := pc.AfterConnect, pc.BeforeClose
	pc.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		s.sessions.add(c.PgConn().PID())
		return connected(ctx, c)
	}
	pc.BeforeClose = func(c *pgx.Conn) {
		s.sessions.remove(c.PgConn().PID())
		closing(c)
	}
	s.where = where(pc)
	if replica {
		s.where = "replica " + s.where
	}
	s.pool, err = pgxpool.NewWithConfig(context.Background(), pc)
	if err != nil {
		return nil, status.Errorf(status.EOptions, "invalid PostgreSQL settings: "+s.secrets.scrub(err.Error()))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(cfg.ConnectTimeoutMs)*time.Millisecond)
	defer cancel()
	if err := s.pool.Ping(ctx); err != nil {
		s.pool.Close()
		return nil, s.connectFailure(err)
	}
	return s, nil
}

func (s *server) down() bool { return time.Now().UnixNano() < s.downUntil.Load() }

// markDown takes a replica out of the reads for replicaRetry, and counts it
// (the read that found it failing skips it too: replicaSkips counts that
// read in Backend.Run).
func (s *server) markDown() {
	s.downUntil.Store(time.Now().Add(replicaRetry).UnixNano())
	replicaFailures.Add(1)
}
