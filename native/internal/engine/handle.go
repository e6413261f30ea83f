package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"dalkit/native/internal/planted"
	"dalkit/native/internal/sqlite"
)

// Handle is an open data directory: the unit dal_open returns. This file
// holds its lifecycle; pipeline.go runs requests on it.
type Handle struct {
	dir  string
	opts Options

	// life is held shared by every running query and exclusively by Close,
	// so Close waits for running queries and no query starts after it.
	life   sync.RWMutex
	closed bool

	dbs databaseSet

	plant *planted.Planter // nil unless a plant_leak option asked for one
}

// Open validates the directory and options and registers a new handle.
func Open(dataDir, options string) (int64, error) {
	opts, err := ParseOptions(options)
	if err != nil {
		return 0, err
	}
	if dataDir == "" {
		return 0, errorf(EDatabase, "data directory is empty")
	}
	abs, err := filepath.Abs(dataDir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return 0, errorf(EDatabase, fmt.Sprintf("data directory %q: %v", dataDir, err))
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return 0, errorf(EDatabase, fmt.Sprintf("data directory %q is not a directory", dataDir))
	}
	// Settle the process's SQLite configuration now, before the host's
	// next SQLite call could initialize the library without it: databases
	// open their connections only on first use (internal/sqlite, config.c).
	sqlite.Configuration()
	h := &Handle{dir: abs, opts: opts}
	h.dbs.init(abs, &h.opts)
	h.plant = planted.New(opts.PlantLeak, opts.PlantLeakBytes)
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
	h.dbs.closeAll()
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
