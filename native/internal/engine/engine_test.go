package engine

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"dalkit/native/internal/planted"

	"github.com/tinylib/msgp/msgp"
)

// request builds {id, db, commands} from (method, args-appender) pairs.
type cmd struct {
	method string
	args   func([]byte) []byte
}

func request(id uint64, db string, cmds ...cmd) []byte {
	b := msgp.AppendMapHeader(nil, 3)
	b = msgp.AppendString(b, "id")
	b = msgp.AppendUint64(b, id)
	b = msgp.AppendString(b, "db")
	b = msgp.AppendString(b, db)
	b = msgp.AppendString(b, "commands")
	return appendCommands(b, cmds)
}

// appendCommands appends a command list: [{method, args}...] (a request's
// commands, or one list of a Tx).
func appendCommands(b []byte, cmds []cmd) []byte {
	b = msgp.AppendArrayHeader(b, uint32(len(cmds)))
	for _, c := range cmds {
		b = msgp.AppendMapHeader(b, 2)
		b = msgp.AppendString(b, "method")
		b = msgp.AppendString(b, c.method)
		b = msgp.AppendString(b, "args")
		b = c.args(b)
	}
	return b
}

func in(table string) cmd {
	return cmd{"In", func(b []byte) []byte { return msgp.AppendString(msgp.AppendArrayHeader(b, 1), table) }}
}

// obj is an ordered map for appendAny: map order is part of the SQL.
type kv struct {
	k string
	v any
}
type obj []kv

func appendAny(b []byte, v any) []byte {
	switch x := v.(type) {
	case obj:
		b = msgp.AppendMapHeader(b, uint32(len(x)))
		for _, e := range x {
			b = msgp.AppendString(b, e.k)
			b = appendAny(b, e.v)
		}
		return b
	case []any:
		b = msgp.AppendArrayHeader(b, uint32(len(x)))
		for _, e := range x {
			b = appendAny(b, e)
		}
		return b
	default:
		out, err := msgp.AppendIntf(b, v)
		if err != nil {
			panic(err)
		}
		return out
	}
}

func with(method string, args ...any) cmd {
	return cmd{method, func(b []byte) []byte { return appendAny(b, args) }}
}

// result decodes a response into a generic map.
func result(t *testing.T, h *Handle, req []byte) map[string]any {
	t.Helper()
	r, err := h.Query(req)
	if err != nil {
		t.Fatalf("query failed: %v", err)
	}
	defer r.Release()
	v, rest, err := msgp.ReadIntfBytes(r.Bytes())
	if err != nil || len(rest) != 0 {
		t.Fatalf("bad response: %v (%d trailing)", err, len(rest))
	}
	return v.(map[string]any)
}

func openTemp(t *testing.T, options string) (*Handle, string) {
	t.Helper()
	dir := t.TempDir()
	id, err := Open(dir, options)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { Close(id) })
	h, _ := Lookup(id)
	return h, dir
}

// createTable runs DDL through a connection of the engine's own kind (the
// DAL has no DDL method on purpose).
func createTable(t testing.TB, dir, db, ddl string) {
	t.Helper()
	c, err := openConn(filepath.Join(dir, db), &Options{BusyTimeoutMs: 1000, Synchronous: "normal", StmtCache: 1}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	if err := c.db.Exec(ddl); err != nil {
		t.Fatal(err)
	}
}

func rows(t *testing.T, m map[string]any) [][]any {
	t.Helper()
	if e, ok := m["e"]; ok {
		t.Fatalf("unexpected error %v", e)
	}
	var out [][]any
	for _, r := range m["r"].([]any) {
		out = append(out, r.([]any))
	}
	return out
}

func TestReferenceResponseBytes(t *testing.T) {
	h, _ := openTemp(t, "")
	req := request(9, "database.sqlite", in("data"), with("Find", obj{{"a", 1}, {"b", obj{{"$gt", 2}}}}))
	if len(req) != 87 {
		t.Fatalf("reference request is %d bytes, want 87", len(req))
	}
	r, err := h.Query(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	want := "\x84\xa1i\x09\xa2ra\x00\xa2li\x00\xa1e\xb3no such table: data"
	if string(r.Bytes()) != want {
		t.Fatalf("got %q, want %q", r.Bytes(), want)
	}
}

func TestInsertFindSetDeleteRoundTrip(t *testing.T) {
	h, dir := openTemp(t, "")
	createTable(t, dir, "t.db", `CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, age INTEGER, score REAL, pic BLOB)`)

	m := result(t, h, request(1, "t.db", in("users"), with("Insert",
		obj{{"name", "ann"}, {"age", 31}, {"score", 1.5}, {"pic", []byte{0, 1, 2}}},
		obj{{"name", "bob"}, {"age", 17}, {"score", 2.5}, {"pic", nil}},
		obj{{"name", "cy'; DROP TABLE users; --"}, {"age", 45}, {"score", nil}, {"pic", nil}},
	)))
	if m["ra"] != int64(3) || m["li"] != int64(3) {
		t.Fatalf("insert: %v", m)
	}

	got := rows(t, result(t, h, request(2, "t.db", in("users"),
		with("Find", obj{{"age", obj{{"$gte", 18}}}}),
		with("Fields", "name", "score", "pic"),
		with("Sort", obj{{"age", -1}}))))
	if len(got) != 2 || got[0][0] != "cy'; DROP TABLE users; --" || got[1][0] != "ann" || got[1][1] != 1.5 {
		t.Fatalf("find: %v", got)
	}
	if b, ok := got[1][2].([]byte); !ok || len(b) != 3 {
		t.Fatalf("blob round trip: %#v", got[1][2])
	}
	if got[0][1] != nil {
		t.Fatalf("NULL must come back as nil: %#v", got[0][1])
	}

	m = result(t, h, request(3, "t.db", in("users"), with("Find", obj{{"name", "bob"}}), with("Set", obj{{"age", 18}})))
	if m["ra"] != int64(1) || m["li"] != int64(0) {
		t.Fatalf("set: %v", m)
	}
	m = result(t, h, request(4, "t.db", in("users"), with("Find", obj{{"score", nil}}), with("Delete")))
	if m["ra"] != int64(1) {
		t.Fatalf("delete: %v", m)
	}
	got = rows(t, result(t, h, request(5, "t.db", in("users"), with("Fields", "count(*) as n"))))
	if got[0][0] != int64(2) {
		t.Fatalf("count after delete: %v", got)
	}
	// Empty result: columns, no rows.
	m = result(t, h, request(6, "t.db", in("users"), with("Find", obj{{"age", obj{{"$gt", 1000}}}})))
	if len(m["c"].([]any)) != 5 || len(m["r"].([]any)) != 0 || m["i"] != uint64(6) && m["i"] != int64(6) {
		t.Fatalf("empty result: %v", m)
	}
}

func TestUpsertAndTx(t *testing.T) {
	h, dir := openTemp(t, "")
	createTable(t, dir, "u.db", `CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER)`)
	ins := func(v int, extra ...cmd) map[string]any {
		return result(t, h, request(1, "u.db", append([]cmd{in("kv"), with("Insert", obj{{"k", "x"}, {"v", v}})}, extra...)...))
	}
	if m := ins(1); m["ra"] != int64(1) {
		t.Fatal(m)
	}
	if m := ins(2); m["e"] == nil || !strings.Contains(m["e"].(string), "UNIQUE") {
		t.Fatalf("duplicate insert must fail with SQLite's message: %v", m)
	}
	if m := ins(3, with("OnConflict", "k"), with("DoNothing")); m["ra"] != int64(0) || m["e"] != nil {
		t.Fatalf("do nothing: %v", m)
	}
	if m := ins(4, with("OnConflict", "k"), with("DoUpdate", "v")); m["ra"] != int64(1) || m["e"] != nil {
		t.Fatalf("do update: %v", m)
	}
	if got := rows(t, result(t, h, request(2, "u.db", in("kv"), with("Fields", "v")))); got[0][0] != int64(4) {
		t.Fatalf("upserted value: %v", got)
	}

	// A Tx that fails half way leaves nothing behind.
	txArgs := func(second string) cmd {
		return cmd{"Tx", func(b []byte) []byte {
			b = msgp.AppendArrayHeader(b, 2)
			for _, key := range []string{"y", second} {
				b = msgp.AppendArrayHeader(b, 2)
				b = appendAny(b, obj{{"method", "In"}, {"args", []any{"kv"}}})
				b = appendAny(b, obj{{"method", "Insert"}, {"args", []any{obj{{"k", key}, {"v", 9}}}}})
			}
			return b
		}}
	}
	m := result(t, h, request(3, "u.db", txArgs("x")))
	if m["e"] == nil {
		t.Fatalf("tx with a duplicate key must fail: %v", m)
	}
	if got := rows(t, result(t, h, request(4, "u.db", in("kv"), with("Fields", "count(*)")))); got[0][0] != int64(1) {
		t.Fatalf("failed tx must roll back: %v", got)
	}
	m = result(t, h, request(5, "u.db", txArgs("z")))
	if m["e"] != nil || m["ra"] != int64(2) {
		t.Fatalf("tx: %v", m)
	}
}

func TestJoinGroupLimitOffset(t *testing.T) {
	h, dir := openTemp(t, "")
	createTable(t, dir, "j.db", `CREATE TABLE u (id INTEGER PRIMARY KEY, name TEXT);
		CREATE TABLE p (id INTEGER PRIMARY KEY, uid INTEGER, amount INTEGER);
		INSERT INTO u VALUES (1,'a'),(2,'b'),(3,'c');
		INSERT INTO p (uid, amount) VALUES (1,10),(1,20),(2,5),(3,1),(3,2),(3,3)`)
	got := rows(t, result(t, h, request(1, "j.db", in("u"),
		with("Join", obj{{"$for", "p"}, {"$do", obj{{"p.uid", "u.id"}}}}),
		with("Fields", "u.name", "sum(p.amount) as total"),
		with("Group", "u.name"),
		with("Sort", obj{{"total", "desc"}}),
		with("Limit", 2),
		with("Offset", 1))))
	if len(got) != 2 || got[0][0] != "b" && got[0][0] != "c" {
		t.Fatalf("join/group: %v", got)
	}
	if got[0][1] != int64(6) || got[1][1] != int64(5) {
		t.Fatalf("join/group totals: %v", got)
	}
}

func TestConcurrentReadsAndWritesOnOneHandle(t *testing.T) {
	h, dir := openTemp(t, "max_readers=4")
	createTable(t, dir, "c.db", `CREATE TABLE t (n INTEGER)`)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for w := 0; w < 4; w++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				r, err := h.Query(request(1, "c.db", in("t"), with("Insert", obj{{"n", i}})))
				if err != nil {
					errs <- err.Error()
					return
				}
				r.Release()
			}
		}()
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				r, err := h.Query(request(2, "c.db", in("t"), with("Fields", "count(*)")))
				if err != nil {
					errs <- err.Error()
					return
				}
				r.Release()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if got := rows(t, result(t, h, request(3, "c.db", in("t"), with("Fields", "count(*)")))); got[0][0] != int64(800) {
		t.Fatalf("rows: %v", got)
	}
	if c := ReadCounters(); c.StatementsLive > int64(5*64) {
		t.Fatalf("statement cache exceeded its bound: %d live", c.StatementsLive)
	}
}

func TestStatementCacheIsBounded(t *testing.T) {
	h, dir := openTemp(t, "stmt_cache=4;max_readers=1")
	createTable(t, dir, "s.db", `CREATE TABLE t (a INTEGER, b INTEGER, c INTEGER, d INTEGER, e INTEGER, f INTEGER)`)
	before := ReadCounters().StatementsLive
	for _, col := range []string{"a", "b", "c", "d", "e", "f"} {
		result(t, h, request(1, "s.db", in("t"), with("Find", obj{{col, 1}})))
	}
	if live := ReadCounters().StatementsLive - before; live != 4 {
		t.Fatalf("%d statements live, want the cache bound 4", live)
	}
}

func TestPlantedLeaksGrowTheirLayer(t *testing.T) {
	for _, kind := range []string{"go_cmem", "go_heap", "sqlite_stmt"} {
		t.Run(kind, func(t *testing.T) {
			h, _ := openTemp(t, "plant_leak="+kind+";plant_leak_bytes=64")
			before := ReadCounters().PlantedBytes
			for i := 0; i < 1000; i++ {
				r, err := h.Query(request(1, "p.db", in("data"), with("Find", obj{{"a", 1}})))
				if err != nil {
					t.Fatal(err)
				}
				r.Release()
			}
			grown := ReadCounters().PlantedBytes - before
			// Leaked in blocks: within one block (or one statement) of N x queries.
			if want := int64(64 * 1000); grown <= want-2*planted.Block || grown > want+4096 {
				t.Fatalf("planted %d bytes, want about %d", grown, want)
			}
		})
	}
}

// The goroutine plant leaks one goroutine every plant_leak_every queries
// (default: every query), and it never exits.
// plantedGoroutines counts the goroutines whose stack holds the plant's
// function (internal/planted's waitForever), started or not yet run.
func plantedGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "internal/planted.waitForever(")
		}
		buf = make([]byte, 2*len(buf))
	}
}

func TestPlantedGoroutineLeak(t *testing.T) {
	for _, c := range []struct {
		options string
		want    int
	}{{"plant_leak=goroutine", 200}, {"plant_leak=goroutine;plant_leak_every=50", 4}} {
		h, _ := openTemp(t, c.options)
		before := plantedGoroutines()
		for i := 0; i < 200; i++ {
			result(t, h, request(1, "g.db", in("data"), with("Find", obj{{"a", 1}})))
		}
		// Counted by their function, not by runtime.NumGoroutine: other
		// goroutines (the runtime's, other tests', -race's) come and go.
		if grown := plantedGoroutines() - before; grown != c.want {
			t.Errorf("%s: %d more planted goroutines after 200 queries, want %d", c.options, grown, c.want)
		}
	}
}

func TestPlantOptions(t *testing.T) {
	for s, every := range map[string]int{"plant_leak=goroutine": 1, "plant_leak=connection": 1000, "plant_leak=goroutine;plant_leak_every=0": 1, "plant_leak=connection;plant_leak_every=7": 7} {
		if o, err := ParseOptions(s); err != nil || o.PlantLeakEvery != every {
			t.Errorf("%s: every %d (%v), want %d", s, o.PlantLeakEvery, err, every)
		}
	}
	// A size that does not apply to the plant is refused, never ignored.
	for _, bad := range []string{"plant_leak=goroutine;plant_leak_bytes=16", "plant_leak=go_heap;plant_leak_every=3", "plant_leak=connection;plant_leak_every=1048577"} {
		if _, err := ParseOptions(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if _, err := Open(t.TempDir(), "plant_leak=connection"); err == nil || !strings.Contains(err.Error(), "needs a PostgreSQL URL") {
		t.Errorf("plant_leak=connection on a directory: %v", err)
	}
}

func TestOptions(t *testing.T) {
	if _, err := ParseOptions("max_readers=300"); err == nil {
		t.Fatal("out of range accepted")
	}
	if _, err := ParseOptions("plant_leak=rss"); err == nil {
		t.Fatal("unknown leak layer accepted")
	}
	o, err := ParseOptions("busy_timeout_ms=10;synchronous=FULL,stmt_cache=0;;max_databases=5;max_query_ms=0;max_response_bytes=4096;")
	if err != nil || o.BusyTimeoutMs != 10 || o.Synchronous != "full" || o.StmtCache != 0 ||
		o.MaxDatabases != 5 || o.MaxQueryMs != 0 || o.MaxResponseBytes != 4096 {
		t.Fatalf("%+v %v", o, err)
	}
	if o, err := ParseOptions(""); err != nil || o != DefaultOptions() {
		t.Fatalf("empty string must give the defaults: %+v %v", o, err)
	}
	// The grammar of dal.h, the same as the shim's parser: no whitespace
	// next to a key or a value, no key twice.
	for _, bad := range []string{
		"max_readers= 4", "max_readers =4", " max_readers=4", "max_readers=4 ", "max_readers=\t4",
		" ", "max_readers=4; stmt_cache=1", "max_readers=4;max_readers=4", "max_readers=4,max_readers=5",
		"=4", "max_readers", "max_databases=0", "max_response_bytes=63", "max_query_ms=-1",
	} {
		_, err := ParseOptions(bad)
		var e *Error
		if err == nil || !asError(err, &e) || e.Code != EOptions {
			t.Errorf("options %q: got %v, want DAL_E_OPTIONS", bad, err)
		}
	}
	if _, err := ParseOptions("max_readers=4;max_readers=4"); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("a duplicate key must be named: %v", err)
	}
	// plant_leak_bytes absent or 0 means the default 16, as in the shim.
	for _, s := range []string{"plant_leak=go_heap", "plant_leak=go_heap;plant_leak_bytes=0"} {
		if o, err := ParseOptions(s); err != nil || o.PlantLeakBytes != defaultPlantLeakBytes {
			t.Errorf("%s: %+v %v", s, o, err)
		}
	}
}

func TestDatabaseFilesStayInsideDataDirectory(t *testing.T) {
	h, dir := openTemp(t, "")
	outside := t.TempDir()
	if err := os.Symlink(filepath.Join(outside, "x.db"), filepath.Join(dir, "link.db")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"../x.db", "/etc/passwd", "a/b", "..", ".x", "link.db", "x.db-shm", "bad\x00name", "\x1b[31m"} {
		_, err := h.Query(request(1, name, in("t"), with("Find", obj{})))
		var e *Error
		if err == nil || !asError(err, &e) || e.Code != ERequest {
			t.Errorf("db name %q: got %v, want DAL_E_REQUEST", name, err)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("a file was created outside the data directory: %v", entries)
	}
}

func asError(err error, target **Error) bool {
	e, ok := err.(*Error)
	if ok {
		*target = e
	}
	return ok
}

// Many connections opening a brand-new file at once, from two handles (as two
// processes would): switching to WAL needs an exclusive lock and SQLite
// answers SQLITE_BUSY without waiting, which must never reach the caller.
func TestFreshDatabaseOpenedConcurrently(t *testing.T) {
	for round := 0; round < 20; round++ {
		dir := t.TempDir()
		var handles []*Handle
		for i := 0; i < 2; i++ {
			id, err := Open(dir, "max_readers=8")
			if err != nil {
				t.Fatal(err)
			}
			defer Close(id)
			h, _ := Lookup(id)
			handles = append(handles, h)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for g := 0; g < 16; g++ {
			wg.Add(1)
			go func(h *Handle) {
				defer wg.Done()
				r, err := h.Query(request(9, "fresh.db", in("data"), with("Find", obj{{"a", 1}})))
				if err != nil {
					errs <- err
					return
				}
				r.Release()
			}(handles[g%2])
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}

// sqliteDBs is the open databases of a SQLite handle.
func sqliteDBs(h *Handle) *databaseSet { return &h.be.(*sqliteBackend).dbs }
