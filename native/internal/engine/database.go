package engine

import (
	"sync"
	"sync/atomic"

	"dalkit/native/internal/sqlite"
)

// database is one database file of a handle: a single writer connection
// behind a mutex (SQLite allows one writer) and a pool of reader connections
// that run SELECTs concurrently under WAL.
type database struct {
	name string
	path string
	opts *Options

	users   atomic.Int32 // running requests (databaseSet never closes one in use)
	lastUse atomic.Int64 // databaseSet.clock at the last release

	// openMu serializes opening connections, so the first one switches a
	// new file to WAL before the others try (they would only get
	// SQLITE_BUSY and retry).
	openMu sync.Mutex

	writeMu sync.Mutex
	writer  *conn

	readMu  sync.Mutex
	readCV  sync.Cond
	idle    []*conn
	readers int // open reader connections, idle or in use
}

func newDatabase(name, path string, opts *Options) *database {
	d := &database{name: name, path: path, opts: opts}
	d.readCV.L = &d.readMu
	return d
}

// lockWriter returns the writer connection, opening it on first use, with
// the write lock held; unlockWriter releases it.
func (d *database) lockWriter() (*conn, error) {
	d.writeMu.Lock()
	if d.writer == nil {
		c, err := d.open(false)
		if err != nil {
			d.writeMu.Unlock()
			return nil, err
		}
		d.writer = c
	}
	return d.writer, nil
}

func (d *database) unlockWriter() { d.writeMu.Unlock() }

// acquireReader takes an idle reader, opens one while under max_readers, or
// waits for one to come back.
func (d *database) acquireReader() (*conn, error) {
	d.readMu.Lock()
	for {
		if n := len(d.idle); n > 0 {
			c := d.idle[n-1]
			d.idle = d.idle[:n-1]
			d.readMu.Unlock()
			return c, nil
		}
		if d.readers < d.opts.MaxReaders {
			d.readers++
			d.readMu.Unlock()
			c, err := d.open(true)
			if err != nil {
				d.readMu.Lock()
				d.readers--
				d.readCV.Signal()
				d.readMu.Unlock()
				return nil, err
			}
			return c, nil
		}
		d.readCV.Wait()
	}
}

func (d *database) open(readOnly bool) (*conn, error) {
	d.openMu.Lock()
	defer d.openMu.Unlock()
	return openConn(d.path, d.opts, readOnly)
}

func (d *database) releaseReader(c *conn) {
	d.readMu.Lock()
	d.idle = append(d.idle, c)
	d.readMu.Unlock()
	d.readCV.Signal()
}

// close closes every connection. The handle guarantees no query is running.
func (d *database) close() {
	d.readMu.Lock()
	for _, c := range d.idle {
		c.close()
	}
	d.idle, d.readers = nil, 0
	d.readMu.Unlock()
	d.writeMu.Lock()
	if d.writer != nil {
		d.writer.close()
		d.writer = nil
	}
	d.writeMu.Unlock()
}

// LeakStatements prepares statements on the writer connection and never
// finalizes them, until at least n bytes of SQLite memory are gone, and
// returns the bytes leaked. Only the sqlite_stmt planted leak calls it
// (internal/planted); the statements are counted as live, so the leak shows
// in dal_stats like a real one.
func (d *database) LeakStatements(n int64) int64 {
	c, err := d.lockWriter()
	if err != nil {
		return 0
	}
	defer d.unlockWriter()
	var leaked int64
	for leaked < n {
		before := sqlite.MemoryUsed()
		s, _, _ := c.db.Prepare([]byte("SELECT 1"))
		if s == nil {
			break
		}
		statementsLive.Add(1)
		// Another thread may free memory meanwhile: count at least 64 bytes
		// per statement so the loop always ends.
		leaked += max(sqlite.MemoryUsed()-before, 64)
	}
	return leaked
}
