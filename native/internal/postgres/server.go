package postgres

import (
	"context"
	"sync/atomic"
	"time"

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

// markDown takes a replica out of the reads for replicaRetry, and counts it.
func (s *server) markDown() {
	s.downUntil.Store(time.Now().Add(replicaRetry).UnixNano())
	replicaFailures.Add(1)
}
