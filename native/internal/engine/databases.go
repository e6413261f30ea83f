package engine

import (
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"

	"dalkit/native/internal/dbname"
)

// databaseSet is a handle's open databases, at most max_databases of them.
// Every distinct db name opens files (the database, its WAL and shared
// memory, per connection), so without a bound requests alone could exhaust
// the host's file descriptors. Past the bound the least recently used idle
// database is closed to make room; a database a request is using is never
// closed, and when all are in use the request fails with DAL_E_LIMIT.
type databaseSet struct {
	dir  string
	opts *Options

	// mu is held shared to find an open database and exclusively to open or
	// close one; a database's users count only rises under mu, so a writer
	// holding mu sees a stable count.
	mu     sync.RWMutex
	byName map[string]*database
	clock  atomic.Int64 // orders releases, for least-recently-used
}

func (s *databaseSet) init(dir string, opts *Options) {
	s.dir, s.opts = dir, opts
	s.byName = make(map[string]*database)
}

// acquire returns the database for a request's db name, opening it (and
// validating the name) on first use. The caller must release it.
func (s *databaseSet) acquire(name []byte) (*database, error) {
	s.mu.RLock()
	d := s.byName[string(name)] // no allocation: the compiler elides the conversion
	if d != nil {
		d.users.Add(1)
	}
	s.mu.RUnlock()
	if d != nil {
		return d, nil
	}
	if err := dbname.Validate(name); err != nil {
		return nil, err
	}
	path := filepath.Join(s.dir, string(name))
	if err := checkPathLength(path); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byName == nil {
		return nil, errorf(EHandle, "handle is closed")
	}
	if d = s.byName[string(name)]; d != nil {
		d.users.Add(1)
		return d, nil
	}
	if len(s.byName) >= s.opts.MaxDatabases && !s.closeLeastRecentlyUsed() {
		return nil, errorf(ELimit, fmt.Sprintf(
			"max_databases=%d: every open database is in use by a running request, so %q cannot be opened now; retry, or open the handle with a larger max_databases",
			s.opts.MaxDatabases, name))
	}
	if err := checkNoSymlinks(path); err != nil {
		return nil, err
	}
	d = newDatabase(string(name), path, s.opts)
	d.users.Store(1)
	s.byName[d.name] = d
	return d, nil
}

// release ends a request's use of d.
func (s *databaseSet) release(d *database) {
	d.lastUse.Store(s.clock.Add(1))
	d.users.Add(-1)
}

// closeLeastRecentlyUsed closes the idle database released longest ago and
// reports whether there was one. Called with mu held exclusively; a linear
// scan, because it only runs when a new database is about to be opened,
// which costs far more.
func (s *databaseSet) closeLeastRecentlyUsed() bool {
	var oldest *database
	for _, d := range s.byName {
		if d.users.Load() == 0 && (oldest == nil || d.lastUse.Load() < oldest.lastUse.Load()) {
			oldest = d
		}
	}
	if oldest == nil {
		return false
	}
	delete(s.byName, oldest.name)
	oldest.close()
	return true
}

// closeAll closes every database; the handle guarantees no query runs.
func (s *databaseSet) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.byName {
		d.close()
	}
	s.byName = nil
}

// open reports how many databases are open.
func (s *databaseSet) open() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.byName)
}
