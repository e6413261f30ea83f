package engine

import (
	"container/list"

	"dalkit/native/internal/sqlite"
)

// stmtCache is a connection's bounded LRU of prepared statements keyed by SQL
// text. Evicted statements are finalized at once; capacity 0 disables caching
// (every statement is finalized after use).
type stmtCache struct {
	capacity int
	byText   map[string]*list.Element
	lru      list.List // front = most recently used; values are *cachedStmt
}

type cachedStmt struct {
	sql  string
	stmt *sqlite.Stmt
}

func newStmtCache(capacity int) *stmtCache {
	return &stmtCache{capacity: capacity, byText: make(map[string]*list.Element, capacity)}
}

// get returns the cached statement for sql, or nil.
func (c *stmtCache) get(sql []byte) *sqlite.Stmt {
	if e, ok := c.byText[string(sql)]; ok { // no allocation: the compiler elides the conversion
		c.lru.MoveToFront(e)
		return e.Value.(*cachedStmt).stmt
	}
	return nil
}

// put caches stmt under sql and reports whether it was kept; if not, the
// caller finalizes it after use.
func (c *stmtCache) put(sql []byte, stmt *sqlite.Stmt) bool {
	if c.capacity == 0 {
		return false
	}
	if c.lru.Len() >= c.capacity {
		oldest := c.lru.Back()
		cs := c.lru.Remove(oldest).(*cachedStmt)
		delete(c.byText, cs.sql)
		finalize(cs.stmt)
	}
	cs := &cachedStmt{sql: string(sql), stmt: stmt}
	c.byText[cs.sql] = c.lru.PushFront(cs)
	return true
}

// clear finalizes every cached statement; the connection is closing, so the
// cache is left empty and its index dropped for the GC rather than cleared
// entry by entry.
func (c *stmtCache) clear() {
	for e := c.lru.Front(); e != nil; e = e.Next() {
		finalize(e.Value.(*cachedStmt).stmt)
	}
	c.lru.Init()
	c.byText = make(map[string]*list.Element)
}

func finalize(s *sqlite.Stmt) {
	s.Finalize()
	statementsLive.Add(-1)
}
