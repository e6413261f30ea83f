package engine

import (
	"errors"
	"fmt"
	"time"

	"dalkit/native/internal/sqlite"
)

// conn is one SQLite connection with its statement cache. It is used by one
// goroutine at a time (the pool or the write lock guarantees that).
type conn struct {
	db    *sqlite.Conn
	cache *stmtCache
}

func openConn(path string, o *Options, readOnly bool) (*conn, error) {
	flags := sqlite.OpenReadWrite | sqlite.OpenCreate | sqlite.OpenNoMutex | sqlite.OpenNoFollow
	db, err := sqlite.Open(path, flags, o.BusyTimeoutMs)
	if err != nil {
		return nil, errorf(EDatabase, fmt.Sprintf("cannot open database %s: %v", path, err))
	}
	// synchronous first, so that switching a new file to WAL already syncs
	// only as much as the handle asked for.
	if err := db.Exec("PRAGMA synchronous=" + o.Synchronous); err != nil {
		db.Close()
		return nil, errorf(EDatabase, fmt.Sprintf("cannot configure database %s (PRAGMA synchronous=%s): %v", path, o.Synchronous, err))
	}
	// WAL lets readers run beside the single writer. Every connection asks
	// for it because any of them may be the first to touch a new file.
	if err := execRetryingBusy(db, "PRAGMA journal_mode=WAL", o.BusyTimeoutMs); err != nil {
		db.Close()
		return nil, errorf(EDatabase, fmt.Sprintf("cannot configure database %s (PRAGMA journal_mode=WAL): %v", path, err))
	}
	var pragmas []string
	if readOnly {
		// Reader connections only ever run the SELECTs the builder made;
		// query_only makes any mistake there fail instead of writing.
		pragmas = append(pragmas, "PRAGMA query_only=1")
	}
	for _, p := range pragmas {
		if err := db.Exec(p); err != nil {
			db.Close()
			return nil, errorf(EDatabase, fmt.Sprintf("cannot configure database %s (%s): %v", path, p, err))
		}
	}
	if o.MaxQueryMs > 0 {
		if err := db.SetTimeLimit(o.MaxQueryMs); err != nil {
			db.Close()
			return nil, errorf(ENoMem, fmt.Sprintf("cannot configure database %s: %v", path, err))
		}
	}
	connectionsOpen.Add(1)
	return &conn{db: db, cache: newStmtCache(o.StmtCache)}, nil
}

// prepare returns a statement for sql, from the cache when possible, and
// whether the caller must finalize it after use (not cached). On failure it
// returns nil and SQLite's message (sqlite.Conn.Prepare: nil means
// c.db.ErrMsg()).
func (c *conn) prepare(sql []byte) (stmt *sqlite.Stmt, owned bool, msg []byte) {
	if s := c.cache.get(sql); s != nil {
		return s, false, nil
	}
	s, _, msg := c.db.Prepare(sql)
	if s == nil {
		return nil, false, msg
	}
	statementsLive.Add(1)
	return s, !c.cache.put(sql, s), nil
}

// release resets a statement after use so it holds no read transaction,
// and finalizes it when the cache did not keep it.
func (c *conn) release(s *sqlite.Stmt, owned bool) {
	if owned {
		finalize(s)
		return
	}
	s.Reset()
}

func (c *conn) close() {
	c.cache.clear()
	c.db.Close()
	connectionsOpen.Add(-1)
}

// execRetryingBusy runs sql, retrying while the file is locked, for up to
// the busy timeout. Switching a new file to WAL needs an exclusive lock, and
// SQLite returns SQLITE_BUSY at once (without calling the busy handler)
// when another connection -- another handle, another process -- holds a
// shared lock at that moment.
func execRetryingBusy(db *sqlite.Conn, sql string, busyTimeoutMs int) error {
	deadline := time.Now().Add(time.Duration(busyTimeoutMs) * time.Millisecond)
	wait := time.Millisecond
	for {
		err := db.Exec(sql)
		var se *sqlite.Error
		if err == nil || !errors.As(err, &se) || (se.Code != sqlite.Busy && se.Code != sqlite.Locked) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(wait)
		wait = min(2*wait, 50*time.Millisecond)
	}
}
