package engine

import (
	"fmt"
	"strings"
	"sync"

	"dalkit/native/internal/planted"
	"dalkit/native/internal/postgres"
)

// replicaURLs splits the replicas option (checked by ParseOptions).
func replicaURLs(opt string) []string {
	if opt == "" {
		return nil
	}
	return strings.Split(opt, "|")
}

// openPostgres opens the PostgreSQL backend with the handle's options.
func openPostgres(url string, o *Options) (Backend, error) {
	b, err := postgres.Open(postgres.Config{
		URL:              url,
		PoolSize:         o.PoolSize,
		ConnectTimeoutMs: o.ConnectTimeoutMs,
		MaxQueryMs:       o.MaxQueryMs,
		StmtCache:        o.StmtCache,
		MaxResponseBytes: o.MaxResponseBytes,
		Replicas:         replicaURLs(o.Replicas),
		ReadPrimary:      o.ReadPrimary == 1,
	})
	if err != nil {
		return nil, err // not a nil *postgres.Backend in a non-nil Backend
	}
	return b, nil
}

// Handle is an open data directory or PostgreSQL database: the unit
// dal_open returns. This file holds its lifecycle; pipeline.go runs
// requests on it, through its backend.
type Handle struct {
	opts Options

	// life is held shared by every running query and exclusively by Close,
	// so Close waits for running queries and no query starts after it.
	life   sync.RWMutex
	closed bool

	be Backend

	plant *planted.Planter // nil unless a plant_leak option asked for one
}

// Open validates the data directory, or connects to the PostgreSQL server
// a postgres:// or postgresql:// URL names, and registers a new handle.
func Open(dataDir, options string) (int64, error) {
	opts, err := ParseOptions(options)
	if err != nil {
		return 0, err
	}
	h := &Handle{opts: opts}
	onPostgres := postgres.IsURL(dataDir)
	if err := opts.checkBackend(onPostgres); err != nil {
		return 0, err
	}
	if onPostgres {
		h.be, err = openPostgres(dataDir, &h.opts)
	} else {
		h.be, err = openSQLite(dataDir, &h.opts)
	}
	if err != nil {
		return 0, err
	}
	h.plant = planted.New(opts.PlantLeak, opts.PlantLeakBytes, opts.PlantLeakEvery)
	return registry.add(h), nil
}

// Close unregisters the handle, waits for its running queries and closes
// every connection.
func Close(id int64) error {
	h := registry.remove(id)
	if h == nil {
		return errNotOpen(id)
	}
	h.life.Lock()
	h.closed = true
	h.life.Unlock()
	h.be.Close()
	return nil
}

func errNotOpen(id int64) error {
	return errorf(EHandle, fmt.Sprintf("invalid handle %d: not open (never opened, or already closed)", id))
}

// Lookup returns the open handle for id.
func Lookup(id int64) (*Handle, error) {
	h := registry.get(id)
	if h == nil {
		return nil, errNotOpen(id)
	}
	return h, nil
}
