package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"dalkit/native/internal/query"
)

// Handle is an open data directory: the unit dal_open returns.
type Handle struct {
	dir  string
	opts Options

	// life is held shared by every running query and exclusively by Close,
	// so Close waits for running queries and no query starts after it.
	life   sync.RWMutex
	closed bool

	dbMu sync.RWMutex
	dbs  map[string]*database

	plant planter
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
	h := &Handle{dir: abs, opts: opts, dbs: make(map[string]*database)}
	h.plant = newPlanter(&h.opts)
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
	h.dbMu.Lock()
	for _, d := range h.dbs {
		d.close()
	}
	h.dbs = nil
	h.dbMu.Unlock()
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

// CheckRequestSize refuses a request over the handle's max_request_bytes.
// The C ABI calls it before it views C memory as a Go slice (a size_t may
// not even fit one); Query calls it for Go callers.
func (h *Handle) CheckRequestSize(n uint64) error {
	if n > uint64(h.opts.MaxRequestBytes) {
		return errorf(ETooLarge, fmt.Sprintf("request of %d bytes exceeds max_request_bytes=%d", n, h.opts.MaxRequestBytes))
	}
	return nil
}

// database returns the pool for a db name, validating the name on first use.
func (h *Handle) database(name []byte) (*database, error) {
	h.dbMu.RLock()
	d := h.dbs[string(name)]
	h.dbMu.RUnlock()
	if d != nil {
		return d, nil
	}
	if err := validateDBName(name); err != nil {
		return nil, err
	}
	h.dbMu.Lock()
	defer h.dbMu.Unlock()
	if d = h.dbs[string(name)]; d != nil {
		return d, nil
	}
	path := filepath.Join(h.dir, string(name))
	if err := checkNoSymlinks(path); err != nil {
		return nil, err
	}
	d = newDatabase(path, &h.opts)
	h.dbs[string(name)] = d
	return d, nil
}

// Response is a query's answer, held in a pooled buffer: read Bytes, then
// Release it exactly once.
type Response struct{ sc *scratch }

// Bytes is the MessagePack response; valid until Release.
func (r Response) Bytes() []byte { return r.sc.out }

// Release returns the buffer to the pool.
func (r Response) Release() { putScratch(r.sc) }

// Query executes one request.
func (h *Handle) Query(req []byte) (Response, error) {
	h.life.RLock()
	defer h.life.RUnlock()
	if h.closed {
		return Response{}, errorf(EHandle, "handle is closed")
	}
	if err := h.CheckRequestSize(uint64(len(req))); err != nil {
		return Response{}, err
	}
	sc := getScratch()
	if err := h.run(sc, req); err != nil {
		putScratch(sc)
		return Response{}, err
	}
	return Response{sc: sc}, nil
}

func (h *Handle) run(sc *scratch, req []byte) error {
	v, err := sc.dec.Decode(req)
	if err != nil {
		return errorf(EDecode, err.Error())
	}
	r, err := sc.b.Build(v)
	if err != nil {
		var qe *query.Error
		if errors.As(err, &qe) {
			return errorf(ERequest, qe.Msg)
		}
		return err
	}
	d, err := h.database(r.DB)
	if err != nil {
		return err
	}
	out, err := h.execute(d, r, sc.out[:0])
	if err != nil {
		return err
	}
	sc.out = out
	queriesDone.Add(1)
	h.plant.perQuery(d)
	return nil
}

func (h *Handle) execute(d *database, r *query.Request, out []byte) ([]byte, error) {
	if !r.Tx && r.Stmts[0].Kind == query.Select {
		c, err := d.acquireReader()
		if err != nil {
			return out, err
		}
		defer d.releaseReader(c)
		return runSelect(c, r.ID, &r.Stmts[0], out), nil
	}
	c, err := d.lockWriter()
	if err != nil {
		return out, err
	}
	defer d.unlockWriter()
	return runWrites(c, r, out), nil
}
