package engine

import (
	"sync"
)

// database is one database file of a handle: a single writer connection
// behind a mutex (SQLite allows one writer) and a pool of reader connections
// that run SELECTs concurrently under WAL.
type database struct {
	path string
	opts *Options

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

func newDatabase(path string, opts *Options) *database {
	d := &database{path: path, opts: opts}
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
