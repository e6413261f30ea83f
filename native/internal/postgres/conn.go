package postgres

import (
	"container/list"
	"context"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// connState is what the DAL keeps per server connection, in pgconn's
// CustomData: the schema its search_path names and its prepared
// statements. A connection is used by one request at a time (the pool
// hands it out), so nothing here is locked.
type connState struct {
	schema string // the quoted schema search_path is set to; "" unknown
	stmts  stmtCache
	params paramBuffers
}

const stateKey = "dalkit"

func afterConnect(stmtCache int) func(context.Context, *pgx.Conn) error {
	return func(_ context.Context, c *pgx.Conn) error {
		st := &connState{}
		st.stmts.init(stmtCache)
		c.PgConn().CustomData()[stateKey] = st
		connectionsOpen.Add(1)
		return nil
	}
}

// beforeClose runs when the pool closes a connection (for any reason: the
// handle closing, a broken connection, a health check): its prepared
// statements end with it on the server.
func beforeClose(c *pgx.Conn) {
	if st := stateOf(c.PgConn()); st != nil {
		statementsLive.Add(-int64(st.stmts.lru.Len()))
		st.stmts.drop()
		connectionsOpen.Add(-1)
	}
}

func stateOf(pg *pgconn.PgConn) *connState {
	st, _ := pg.CustomData()[stateKey].(*connState)
	return st
}

// prepared is a statement prepared on one connection: its server-side
// name ("" for the unnamed statement), the parameter types the server
// inferred, the result columns and the format each is read in.
type prepared struct {
	key           string
	name          string
	paramOIDs     []uint32
	fields        []pgconn.FieldDescription
	resultFormats []int16
}

// stmtCache is a connection's bounded LRU of prepared statements, keyed
// by schema and SQL text: the same text names other tables in another
// schema, and PostgreSQL refuses to run a prepared statement whose result
// columns changed ("cached plan must not change result type"). Capacity 0
// prepares the unnamed statement for every request.
type stmtCache struct {
	capacity int
	byKey    map[string]*list.Element
	lru      list.List // front = most recently used; values are *prepared
	next     uint64    // names statements dal_1, dal_2, ... on this connection
	key      []byte    // scratch for lookups
}

func (c *stmtCache) init(capacity int) {
	c.capacity = capacity
	c.byKey = make(map[string]*list.Element, capacity)
}

func (c *stmtCache) lookupKey(schema string, sql []byte) []byte {
	c.key = append(append(append(c.key[:0], schema...), 0), sql...)
	return c.key
}

// prepare returns the statement for sql in schema, preparing it (and
// evicting the least recently used one) on a miss.
func (c *stmtCache) prepare(ctx context.Context, pg *pgconn.PgConn, schema string, sql []byte) (*prepared, error) {
	key := c.lookupKey(schema, sql)
	if e, ok := c.byKey[string(key)]; ok { // no allocation: the compiler elides the conversion
		c.lru.MoveToFront(e)
		return e.Value.(*prepared), nil
	}
	name := ""
	if c.capacity > 0 {
		c.next++
		name = "dal_" + strconv.FormatUint(c.next, 10)
	}
	d, err := pg.Prepare(ctx, name, string(sql), nil)
	if err != nil {
		return nil, err
	}
	p := &prepared{key: string(key), name: name, paramOIDs: d.ParamOIDs, fields: d.Fields}
	p.resultFormats = resultFormats(d.Fields)
	if c.capacity == 0 {
		return p, nil
	}
	if c.lru.Len() >= c.capacity {
		if err := c.evict(ctx, pg, c.lru.Back()); err != nil {
			_ = pg.Deallocate(ctx, p.name) // not cached: do not leave it on the server
			return nil, err
		}
	}
	statementsLive.Add(1)
	c.byKey[p.key] = c.lru.PushFront(p)
	return p, nil
}

// forget deallocates p after the server refused to run it as prepared
// (its tables changed under it), so that the next use prepares it again.
func (c *stmtCache) forget(ctx context.Context, pg *pgconn.PgConn, p *prepared) error {
	if e, ok := c.byKey[p.key]; ok && e.Value == p {
		return c.evict(ctx, pg, e)
	}
	return nil
}

func (c *stmtCache) evict(ctx context.Context, pg *pgconn.PgConn, e *list.Element) error {
	p := c.lru.Remove(e).(*prepared)
	delete(c.byKey, p.key)
	statementsLive.Add(-1)
	return pg.Deallocate(ctx, p.name)
}

// deallocateAll ends every statement of the connection on the server too,
// after SQL text the DAL did not write (dal_exec) may have ended some.
func (c *stmtCache) deallocateAll(ctx context.Context, pg *pgconn.PgConn) {
	if pg.IsClosed() {
		return // the pool closes it, and beforeClose counts its statements
	}
	statementsLive.Add(-int64(c.lru.Len()))
	c.drop()
	_, _ = pg.Exec(ctx, "DEALLOCATE ALL").ReadAll() // a failure breaks the connection, which ends them as well
}

// drop forgets every statement without telling the server: the connection
// is closing, and the statements end with it.
func (c *stmtCache) drop() {
	c.lru.Init()
	c.byKey = make(map[string]*list.Element)
}
