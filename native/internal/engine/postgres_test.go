package engine

import (
	"math"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"dalkit/native/internal/postgres"
)

// codesReq is request with "codes": true.
func codesReq(id uint64, db string, cmds ...cmd) []byte {
	r := request(id, db, cmds...)
	r[0]++ // the map header: 3 keys -> 4 (fixmap)
	r = append(r, 0xa5, 'c', 'o', 'd', 'e', 's', 0xc3)
	return r
}

// Integer and float widths, booleans, numeric, bytea and the text form of
// other types, as rows.go promises.
func TestPostgresValueTypes(t *testing.T) {
	h := openPG(t, pgURL(t), "")
	db := freshSchema(t)
	execPG(t, h, db, `CREATE TABLE v (i2 smallint, i4 integer, i8 bigint, f4 real, f8 double precision, n numeric(20,4), nb numeric,
		b boolean, by bytea, tx text, vc varchar(10), ts timestamp, id uuid, j jsonb);
		INSERT INTO v VALUES (-32768, 2147483647, -9223372036854775808, 1.5, 0.1, 12.5, 123456789012,
		true, '\x00ff'::bytea, 'héllo', 'v', '2024-01-02 03:04:05', '6f1c2e8a-0000-4000-8000-000000000001', '{"a": 1}')`)
	got := rows(t, result(t, h, request(1, db, in("v"))))[0]
	want := []any{int64(-32768), int64(2147483647), int64(math.MinInt64), 1.5, 0.1, 12.5, int64(123456789012),
		int64(1), []byte{0, 255}, "héllo", "v", "2024-01-02 03:04:05", "6f1c2e8a-0000-4000-8000-000000000001", `{"a": 1}`}
	for i := range want {
		if !equalValue(got[i], want[i]) {
			t.Errorf("column %d: got %#v, want %#v", i, got[i], want[i])
		}
	}
	// Aggregates: count and sum of integers are integers, avg a float.
	execPG(t, h, db, `CREATE TABLE a (x bigint); INSERT INTO a VALUES (1), (2), (4)`)
	agg := rows(t, result(t, h, request(2, db, in("a"), with("Fields", "count(*)", "sum(x)", "avg(x)", "max(x)"))))[0]
	if agg[0] != int64(3) || agg[1] != int64(7) || agg[2] != 7.0/3 || agg[3] != int64(4) {
		t.Errorf("aggregates: %#v", agg)
	}
	// A value out of a column's range is the server's error, with its SQLSTATE.
	m := result(t, h, codesReq(3, db, in("v"), with("Insert", obj{{"i2", 40000}})))
	if m["ec"] != "22003" || !strings.Contains(m["e"].(string), "out of range") {
		t.Errorf("smallint overflow: %v", m)
	}
	// A bool binds as 1/0: to a boolean and to an integer column alike.
	execPG(t, h, db, `CREATE TABLE bi (b boolean, n integer)`)
	if m := result(t, h, request(4, db, in("bi"), with("Insert", obj{{"b", true}, {"n", true}}, obj{{"b", false}, {"n", false}}))); m["ra"] != int64(2) {
		t.Fatalf("bools: %v", m)
	}
	if got := rows(t, result(t, h, request(5, db, in("bi"), with("Find", obj{{"b", true}, {"n", 1}})))); len(got) != 1 || got[0][0] != int64(1) || got[0][1] != int64(1) {
		t.Errorf("bool round trip: %v", got)
	}
	// Strings are typed by the server: '7' to an integer is 7, 'x' an error;
	// binary goes to bytea only.
	if got := rows(t, result(t, h, request(6, db, in("a"), with("Find", obj{{"x", "4"}})))); len(got) != 1 {
		t.Errorf("string to integer: %v", got)
	}
	if m := result(t, h, codesReq(7, db, in("a"), with("Find", obj{{"x", "four"}}))); m["ec"] != "22P02" {
		t.Errorf("bad integer text: %v", m)
	}
	if m := result(t, h, codesReq(8, db, in("a"), with("Find", obj{{"x", []byte{0, 0, 0, 0, 0, 0, 0, 4}}}))); m["ec"] != "42804" || !strings.Contains(m["e"].(string), "bytea columns only") {
		t.Errorf("binary to bigint must be refused, not read as 8 bytes: %v", m)
	}
	if m := result(t, h, request(9, db, in("v"), with("Find", obj{{"by", "\\x00ff"}}))); len(m["r"].([]any)) != 0 {
		t.Errorf("a string to bytea is its bytes, never bytea's escaped text: %v", m)
	}
}

func equalValue(a, b any) bool {
	if ab, ok := a.([]byte); ok {
		bb, ok := b.([]byte)
		return ok && string(ab) == string(bb)
	}
	return a == b
}

func TestPostgresRefusesGlob(t *testing.T) {
	h := openPG(t, pgURL(t), "")
	wantCode(t, h, request(1, freshSchema(t), in("t"), with("Find", obj{{"a", obj{{"$glob", "a*"}}}})), ERequest, "PostgreSQL has no GLOB")
}

// codes: true puts the SQLSTATE, a string, in ec; without it the error
// response has the four keys of SQLite's.
func TestPostgresCodes(t *testing.T) {
	h := openPG(t, pgURL(t), "")
	db := freshSchema(t)
	execPG(t, h, db, `CREATE TABLE kv (k text PRIMARY KEY, v integer); INSERT INTO kv VALUES ('x', 1)`)
	dup := []cmd{in("kv"), with("Insert", obj{{"k", "x"}, {"v", 2}})}
	if m := result(t, h, codesReq(1, db, dup...)); m["ec"] != "23505" || len(m) != 5 {
		t.Errorf("unique violation: %v", m)
	}
	if m := result(t, h, codesReq(2, db, in("nosuch"))); m["ec"] != "42P01" || m["e"] != `relation "nosuch" does not exist` {
		t.Errorf("missing table: %v", m)
	}
	if m := result(t, h, request(3, db, dup...)); len(m) != 4 || m["e"] == nil {
		t.Errorf("without codes: %v", m)
	}
	if m := result(t, h, codesReq(4, db, in("kv"), with("Fields", "count(*)"))); m["ec"] != nil {
		t.Errorf("success carries no ec: %v", m)
	}
}

// The SQLite test's unknown columns (unknown_column_test.go) on PostgreSQL:
// each is an error, and nothing changes.
func TestPostgresUnknownColumnIsAnError(t *testing.T) {
	h := openPG(t, pgURL(t), "")
	db := freshSchema(t)
	execPG(t, h, db, `CREATE TABLE t (id integer PRIMARY KEY, name text, n integer); CREATE TABLE o (id integer PRIMARY KEY, tid integer);
		INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3); INSERT INTO o VALUES (1, 1), (2, 2)`)
	before := rows(t, result(t, h, request(1, db, in("t"), with("Sort", obj{{"id", 1}}))))
	for _, col := range unknownColumns {
		for name, cmds := range unknownColumnCases(col) {
			m := result(t, h, codesReq(7, db, cmds...))
			if m["ec"] != "42703" || m["r"] != nil {
				t.Errorf("%s with unknown column %q: want undefined_column (42703), got %v", name, col, m)
			}
		}
	}
	if after := rows(t, result(t, h, request(2, db, in("t"), with("Sort", obj{{"id", 1}})))); !sameRows(before, after) {
		t.Fatalf("the table changed: %v -> %v", before, after)
	}
}

func sameRows(a, b [][]any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if !equalValue(a[i][j], b[i][j]) {
				return false
			}
		}
	}
	return true
}

// hostile are the values and identifiers of the builder's injection tests
// (internal/query/injection_test.go), valid UTF-8 ones.
var hostile = []string{
	`"`, `'`, "`", `[`, `]`, `;`, `.`, `--`, `/*`, `*/`,
	`x'; DROP TABLE t; --`, `x"; DROP TABLE t; --`, `a" OR "1"="1`, `?`, `?1`, `:a`, `@a`, `$a`, `$1`, `\`, `\x41`, `E'\\'`,
	"tαble", "😀", "\u200fabc", "a\u202eb", "\u00a0", "a b", "a\tb", "a\nb", "\u2028",
	`t.c.d`, `a.`, `.a`, `"t"`, `[t]`, "`t`", `t--`, `t/*`, `a;b`, `a,b`, `a)b`, `a(b`, `*`, ``,
}

// Hostile values travel as parameters and come back exactly, as strings
// and as bytes; hostile identifiers are refused before any SQL is sent;
// NUL, which PostgreSQL text cannot hold, is the server's error.
func TestPostgresHostileValuesAndIdentifiers(t *testing.T) {
	h := openPG(t, pgURL(t), "")
	db := freshSchema(t)
	execPG(t, h, db, `CREATE TABLE t (id integer PRIMARY KEY, s text, b bytea)`)
	for i, v := range hostile {
		if m := result(t, h, request(1, db, in("t"), with("Insert", obj{{"id", i}, {"s", v}, {"b", []byte(v)}}))); m["ra"] != int64(1) {
			t.Fatalf("insert %q: %v", v, m)
		}
		got := rows(t, result(t, h, request(2, db, in("t"), with("Find", obj{{"s", v}, {"b", []byte(v)}}), with("Fields", "id", "s", "b"))))
		if len(got) != 1 || got[0][0] != int64(i) || got[0][1] != v || !equalValue(got[0][2], []byte(v)) {
			t.Errorf("value %q: %v", v, got)
		}
		if m := result(t, h, request(3, db, in("t"), with("Find", obj{{"s", obj{{"$like", v}}}}), with("Fields", "count(*)"))); m["e"] != nil {
			t.Errorf("pattern %q: %v", v, m)
		}
	}
	for _, v := range []string{"\x00", "a\x00b"} {
		if m := result(t, h, codesReq(4, db, in("t"), with("Insert", obj{{"id", 1000}, {"s", v}}))); m["e"] == nil {
			t.Errorf("NUL in text must be the server's error: %v", m)
		}
		if m := result(t, h, request(5, db, in("t"), with("Insert", obj{{"id", 1001}, {"b", []byte(v)}}))); m["ra"] != int64(1) {
			t.Errorf("NUL in bytea: %v", m)
		}
		result(t, h, request(6, db, in("t"), with("Find", obj{{"id", 1001}}), with("Delete")))
	}
	for _, id := range hostile {
		for _, cmds := range [][]cmd{
			{in(id)},
			{in("t"), with("Find", obj{{id, 1}})},
			{in("t"), with("Fields", id)},
			{in("t"), with("Sort", obj{{id, 1}})},
			{in("t"), with("Insert", obj{{id, 1}})},
			{in("t"), with("Set", obj{{id, 1}})},
		} {
			if id == "*" && cmds[len(cmds)-1].method == "Fields" || id == "tαble" {
				continue // a valid field, a valid identifier (non-ASCII letters are)
			}
			r, err := h.Query(request(7, db, cmds...))
			var e *Error
			if err == nil {
				r.Release()
			}
			if err == nil || !asError(err, &e) || e.Code != ERequest {
				t.Errorf("identifier %q in %s: got %v, want DAL_E_REQUEST", id, cmds[len(cmds)-1].method, err)
			}
		}
	}
	if n := count(t, h, db, "t"); n != int64(len(hostile)) {
		t.Fatalf("%d rows, want %d", n, len(hostile))
	}
}

// A Tx that fails part way leaves nothing behind: an UPDATE before the
// failure is undone, and the connection serves the next request.
func TestPostgresTxRollback(t *testing.T) {
	h := openPG(t, pgURL(t), "pool_size=1")
	db := freshSchema(t)
	execPG(t, h, db, `CREATE TABLE kv (k text PRIMARY KEY, v integer); INSERT INTO kv VALUES ('a', 1)`)
	m := result(t, h, codesReq(1, db, txOf(
		[]cmd{in("kv"), with("Find", obj{{"k", "a"}}), with("Set", obj{{"v", 2}})},
		[]cmd{in("kv"), with("Insert", obj{{"k", "b"}, {"v", 1}})},
		[]cmd{in("kv"), with("Insert", obj{{"k", "a"}, {"v", 3}})},
		[]cmd{in("kv"), with("Insert", obj{{"k", "c"}, {"v", 1}})},
	)))
	if m["ec"] != "23505" {
		t.Fatalf("tx: %v", m)
	}
	got := rows(t, result(t, h, request(2, db, in("kv"), with("Sort", obj{{"k", 1}}))))
	if len(got) != 1 || got[0][1] != int64(1) {
		t.Fatalf("after the failed tx: %v", got)
	}
	m = result(t, h, request(3, db, txOf(
		[]cmd{in("kv"), with("Insert", obj{{"k", "b"}, {"v", 1}})},
		[]cmd{in("kv"), with("Find", obj{{"k", "a"}}), with("Set", obj{{"v", 2}})},
	)))
	if m["e"] != nil || m["ra"] != int64(2) || m["li"] != int64(0) {
		t.Fatalf("tx: %v", m)
	}
}

// max_response_bytes and max_query_ms end a statement with DAL_E_LIMIT;
// a write past the time limit writes nothing; the handle stays usable.
func TestPostgresLimits(t *testing.T) {
	h := openPG(t, pgURL(t), "max_response_bytes=4096;max_query_ms=300;pool_size=2")
	db := freshSchema(t)
	execPG(t, h, db, `CREATE TABLE t (id integer, pad text);
		INSERT INTO t SELECT x, repeat('p', 100) FROM generate_series(1, 1000) x;
		CREATE VIEW slow AS SELECT 1 AS x FROM pg_sleep(5);
		CREATE TABLE w (n integer);
		CREATE FUNCTION sleepy() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(5); RETURN NEW; END $$;
		CREATE TRIGGER w_slow BEFORE INSERT ON w FOR EACH ROW EXECUTE FUNCTION sleepy()`)
	wantCode(t, h, request(1, db, in("t")), ELimit, "max_response_bytes=4096")
	if got := rows(t, result(t, h, request(2, db, in("t"), with("Limit", 10)))); len(got) != 10 {
		t.Fatalf("after the limit: %d rows", len(got))
	}
	start := time.Now()
	wantCode(t, h, request(3, db, in("slow")), ELimit, "max_query_ms=300")
	wantCode(t, h, request(4, db, in("w"), with("Insert", obj{{"n", 1}})), ELimit, "nothing was written")
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("two statements over a 300 ms limit took %v", el)
	}
	execPG(t, h, db, `DROP TRIGGER w_slow ON w`)
	if n := count(t, h, db, "w"); n != 0 {
		t.Fatalf("the timed-out insert wrote %d rows", n)
	}
}

// Opening: an unreachable server and a refused login are DAL_E_DATABASE
// with messages that say so and never hold the password; options of the
// SQLite backend are refused.
func TestPostgresOpenFailures(t *testing.T) {
	auth := pgEnv(t, "DALKIT_PG_AUTH_URL") // postgres://dal_pw:dal-test-secret@...
	const password = "dal-test-secret"
	openFails := func(url, options string, code Code, msgPart string) {
		t.Helper()
		id, err := Open(url, options)
		if err == nil {
			Close(id)
			t.Fatalf("open %s: succeeded", options)
		}
		var e *Error
		if !asError(err, &e) || e.Code != code || !strings.Contains(e.Msg, msgPart) {
			t.Fatalf("open: got %v, want code %d with %q", err, code, msgPart)
		}
		for _, secret := range []string{password, "wrong-secret-42"} {
			if strings.Contains(e.Msg, secret) {
				t.Fatalf("the message shows the password: %s", e.Msg)
			}
		}
	}
	// The right password opens; a wrong one is a refused login.
	h := openPG(t, auth, "")
	if m := result(t, h, request(1, freshSchema(t), in("nosuch"))); m["e"] == nil {
		t.Fatalf("authenticated handle: %v", m)
	}
	openFails(strings.Replace(auth, password, "wrong-secret-42", 1), "", EDatabase, "refused the login")
	openFails(strings.Replace(auth, password, "wrong-secret-42", 1)+"&password=wrong-secret-42", "", EDatabase, "refused the login")
	// A port nobody listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	start := time.Now()
	openFails("postgres://dal_pw:wrong-secret-42@127.0.0.1:"+port+"/postgres?sslmode=disable", "connect_timeout_ms=2000", EDatabase, "cannot reach PostgreSQL at 127.0.0.1:"+port)
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("an unreachable server took %v to report", el)
	}
	openFails("postgres://dal_pw:wrong-secret-42@127.0.0.1:"+port+"/postgres?sslmode=bogus", "", EOptions, "invalid PostgreSQL URL")
	for _, o := range []string{"max_readers=2", "busy_timeout_ms=10", "synchronous=off", "max_databases=4", "plant_leak=sqlite_stmt"} {
		openFails(pgURL(t), o, EOptions, "SQLite")
	}
	if _, err := Open(t.TempDir(), "pool_size=2"); err == nil || !strings.Contains(err.Error(), "it is an option of PostgreSQL URLs") {
		t.Errorf("pool_size on a data directory: %v", err)
	}
}

// dal_exec runs in the schema of db: tables land there, not in another
// db's schema or in public; its failures are the SQLite backend's codes.
func TestPostgresExec(t *testing.T) {
	h := openPG(t, pgURL(t), "")
	a, b := freshSchema(t), freshSchema(t)
	execPG(t, h, a, `CREATE TABLE only_a (x integer); INSERT INTO only_a VALUES (1)`)
	if n := count(t, h, a, "only_a"); n != 1 {
		t.Fatalf("only_a in %s: %d", a, n)
	}
	if m := result(t, h, codesReq(1, b, in("only_a"))); m["ec"] != "42P01" {
		t.Fatalf("a table of db %s seen from db %s: %v", a, b, m)
	}
	wantCode(t, h, request(2, b, in(a+".only_a")), ERequest, "a table is a plain name")
	for _, c := range []struct {
		sql  string
		code Code
		msg  string
	}{
		{"SELECT 1;\x00DROP TABLE only_a", ERequest, "NUL byte"},
		{"BEGIN; INSERT INTO only_a VALUES (2)", ERequest, "left a transaction open"},
		{"INSERT INTO only_a VALUES (3); SELECT * FROM nosuch", EDatabase, `relation "nosuch" does not exist`},
	} {
		err := h.Exec([]byte(a), []byte(c.sql))
		var e *Error
		if !asError(err, &e) || e.Code != c.code || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("exec %q: got %v, want code %d with %q", c.sql, err, c.code, c.msg)
		}
	}
	// Neither the open transaction's insert nor the failed text's stayed
	// (PostgreSQL runs the text as one implicit transaction).
	if n := count(t, h, a, "only_a"); n != 1 {
		t.Fatalf("only_a after the failed texts: %d rows", n)
	}
	// What the text does to the connection does not reach the next
	// request: search_path, prepared statements.
	one := openPG(t, pgURL(t), "pool_size=1")
	for _, sql := range []string{`SET search_path TO public`, `DEALLOCATE ALL`, `DISCARD ALL`} {
		count(t, one, a, "only_a") // a statement prepared on the one connection
		execPG(t, one, a, sql)
		if n := count(t, one, a, "only_a"); n != 1 {
			t.Fatalf("after %s in exec: %d rows", sql, n)
		}
	}
}

// Schema names follow the db name rules plus PostgreSQL's.
func TestPostgresSchemaNames(t *testing.T) {
	h := openPG(t, pgURL(t), "")
	for _, name := range []string{"../x", "a/b", "..", ".x", "x-wal", "bad\x00name", "\x1b[31m", "pg_catalog", "pg_x", "information_schema", strings.Repeat("s", 64)} {
		wantCode(t, h, request(1, name, in("pg_class")), ERequest, "invalid db name")
	}
	for _, name := range []string{`a"b`, "Mixed Case", "x'; DROP SCHEMA public; --", strings.Repeat("s", 63), "données.sqlite"} {
		execPG(t, h, name, `CREATE TABLE IF NOT EXISTS t (n integer); INSERT INTO t VALUES (1)`)
		if n := count(t, h, name, "t"); n < 1 {
			t.Errorf("schema %q: %d rows", name, n)
		}
	}
}

// The same SQL text in two schemas whose tables differ, on one connection:
// each schema's statement is its own (the cache is keyed by schema), and a
// table changed by DDL is re-prepared, not refused.
func TestPostgresStatementsPerSchemaAndAfterDDL(t *testing.T) {
	h := openPG(t, pgURL(t), "pool_size=1;stmt_cache=8")
	a, b := freshSchema(t), freshSchema(t)
	execPG(t, h, a, `CREATE TABLE t (x integer); INSERT INTO t VALUES (1)`)
	execPG(t, h, b, `CREATE TABLE t (y text, z text); INSERT INTO t VALUES ('p', 'q')`)
	for i := 0; i < 3; i++ {
		ra := result(t, h, request(1, a, in("t")))
		rb := result(t, h, request(2, b, in("t")))
		if len(ra["c"].([]any)) != 1 || len(rb["c"].([]any)) != 2 {
			t.Fatalf("round %d: %v / %v", i, ra, rb)
		}
	}
	execPG(t, h, a, `ALTER TABLE t ADD COLUMN w text DEFAULT 'new'`)
	got := result(t, h, request(3, a, in("t")))
	if len(got["c"].([]any)) != 2 || got["r"].([]any)[0].([]any)[1] != "new" {
		t.Fatalf("after ALTER TABLE: %v", got)
	}
}

// Many goroutines on one handle: connections stay within pool_size and
// prepared statements within stmt_cache per connection, and closing the
// handle releases both.
func TestPostgresConcurrentAndBounded(t *testing.T) {
	before := postgres.ReadCounters()
	goroutines := runtime.NumGoroutine()
	id, err := Open(pgURL(t), "pool_size=3;stmt_cache=2")
	if err != nil {
		t.Fatal(err)
	}
	h, _ := Lookup(id)
	db := freshSchema(t)
	execPG(t, h, db, `CREATE TABLE t (n integer, m integer)`)
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				var req []byte
				switch i % 4 { // four statement shapes through a cache of two
				case 0:
					req = request(1, db, in("t"), with("Insert", obj{{"n", i}, {"m", w}}))
				case 1:
					req = request(2, db, in("t"), with("Fields", "count(*)"))
				case 2:
					req = request(3, db, in("t"), with("Find", obj{{"m", w}}), with("Limit", 1))
				case 3:
					req = request(4, db, in("t"), with("Find", obj{{"n", -1}}), with("Set", obj{{"m", 0}}))
				}
				r, err := h.Query(req)
				if err != nil {
					errs <- err.Error()
					return
				}
				r.Release()
				if c := postgres.ReadCounters(); c.ConnectionsOpen-before.ConnectionsOpen > 3 || c.StatementsLive-before.StatementsLive > 6 {
					errs <- "over the bounds: " + strconv.FormatInt(c.ConnectionsOpen-before.ConnectionsOpen, 10) + " connections, " +
						strconv.FormatInt(c.StatementsLive-before.StatementsLive, 10) + " statements"
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if n := count(t, h, db, "t"); n != 200 {
		t.Fatalf("%d rows, want 200", n)
	}
	Close(id)
	if c := postgres.ReadCounters(); c != before {
		t.Fatalf("after close: %+v, before open: %+v", c, before)
	}
	// The pool's own goroutines (health check, connection cleanup) end
	// with the handle.
	eventually(t, "goroutines back to the count before open", func() bool { return runtime.NumGoroutine() <= goroutines })
}

// The planted leaks that are not SQLite's work on a PostgreSQL handle.
func TestPostgresPlantedLeak(t *testing.T) {
	h := openPG(t, pgURL(t), "plant_leak=go_heap;plant_leak_bytes=64")
	db := freshSchema(t)
	before := ReadCounters().PlantedBytes
	for i := 0; i < 100; i++ {
		result(t, h, request(1, db, in("nosuch")))
	}
	if grown := ReadCounters().PlantedBytes - before; grown < 64*100-1024 || grown > 64*100 {
		t.Fatalf("planted %d bytes, want about %d", grown, 64*100)
	}
}

// A role without CREATE on the database uses a schema made for it, and
// is told why a new db name fails.
func TestPostgresSchemaWithoutCreatePrivilege(t *testing.T) {
	admin := openPG(t, pgURL(t), "")
	db := freshSchema(t)
	execPG(t, admin, db, `CREATE TABLE t (n integer); INSERT INTO t VALUES (1);
		DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'dal_reader') THEN CREATE ROLE dal_reader LOGIN; END IF; END $$;
		GRANT USAGE ON SCHEMA "`+db+`" TO dal_reader; GRANT SELECT ON t TO dal_reader`)
	h := openPG(t, strings.Replace(pgURL(t), "postgres@", "dal_reader@", 1), "")
	if n := count(t, h, db, "t"); n != 1 {
		t.Fatalf("reader: %d rows", n)
	}
	wantCode(t, h, request(1, freshSchema(t), in("t")), EDatabase, "cannot create schema")
}
