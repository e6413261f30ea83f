package engine

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tinylib/msgp/msgp"
)

// Tests of the handle's limits (issue 10: max_databases, max_response_bytes,
// max_query_ms, db name length) and strict inputs (invalid UTF-8).

// wantCode runs req and requires a call failure with code.
func wantCode(t *testing.T, h *Handle, req []byte, code Code, msgPart string) {
	t.Helper()
	r, err := h.Query(req)
	if err == nil {
		defer r.Release()
		v, _, _ := msgp.ReadIntfBytes(r.Bytes())
		t.Fatalf("want code %d, got a response %v", code, v)
	}
	var e *Error
	if !asError(err, &e) || e.Code != code {
		t.Fatalf("want code %d, got %v", code, err)
	}
	if !strings.Contains(e.Msg, msgPart) {
		t.Fatalf("message %q does not mention %q", e.Msg, msgPart)
	}
}

func count(t *testing.T, h *Handle, db, table string) int64 {
	t.Helper()
	return rows(t, result(t, h, request(1, db, in(table), with("Fields", "count(*)"))))[0][0].(int64)
}

// fill creates table t (id, n) with n rows, fast, through SQL.
func fill(t *testing.T, dir, db string, n int) {
	t.Helper()
	createTable(t, dir, db, `CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER, pad TEXT);
		WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < `+strconv.Itoa(n)+`)
		INSERT INTO t SELECT x, x, 'some padding text for every row' FROM c`)
}

func TestMaxDatabasesClosesIdleLeastRecentlyUsed(t *testing.T) {
	h, dir := openTemp(t, "max_databases=3")
	createTable(t, dir, "first.db", `CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (7)`)
	for i := 0; i < 20; i++ {
		name := "db" + strconv.Itoa(i) + ".sqlite"
		m := result(t, h, request(1, name, in("t"), with("Find", obj{})))
		if e, _ := m["e"].(string); !strings.Contains(e, "no such table") {
			t.Fatalf("%s: %v", name, m)
		}
		if n := sqliteDBs(h).open(); n > 3 {
			t.Fatalf("%d databases open, max_databases=3", n)
		}
		if i%2 == 0 { // keep first.db recently used: it must stay open
			if got := count(t, h, "first.db", "t"); got != 1 {
				t.Fatalf("first.db: %d rows", got)
			}
		}
	}
	sqliteDBs(h).mu.RLock()
	_, firstOpen := sqliteDBs(h).byName["first.db"]
	sqliteDBs(h).mu.RUnlock()
	if !firstOpen {
		t.Fatal("the most recently used database was closed instead of an idle older one")
	}
}

func TestMaxDatabasesNeverClosesOneInUse(t *testing.T) {
	h, _ := openTemp(t, "max_databases=2")
	// Hold two databases as a running request would.
	a, err := sqliteDBs(h).acquire([]byte("a.db"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := sqliteDBs(h).acquire([]byte("b.db"))
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, h, request(1, "c.db", in("t"), with("Find", obj{})), ELimit, "max_databases=2")
	// A database already open still answers.
	if m := result(t, h, request(1, "a.db", in("t"), with("Find", obj{}))); m["e"] == nil {
		t.Fatalf("a.db: %v", m)
	}
	sqliteDBs(h).release(a)
	if m := result(t, h, request(1, "c.db", in("t"), with("Find", obj{}))); m["e"] == nil {
		t.Fatalf("c.db after a.db went idle: %v", m)
	}
	sqliteDBs(h).mu.RLock()
	_, aOpen := sqliteDBs(h).byName["a.db"]
	_, bOpen := sqliteDBs(h).byName["b.db"]
	sqliteDBs(h).mu.RUnlock()
	if aOpen || !bOpen {
		t.Fatalf("want a.db (idle) closed and b.db (in use) open: a=%v b=%v", aOpen, bOpen)
	}
	sqliteDBs(h).release(b)
}

func TestMaxResponseBytes(t *testing.T) {
	h, dir := openTemp(t, "max_response_bytes=65536")
	fill(t, dir, "r.db", 2000)
	// A self-join: 4,000,000 rows, far over the limit.
	big := request(1, "r.db", in("t"), with("Join", obj{{"$for", "t b"}, {"$as", "cross"}}))
	wantCode(t, h, big, ELimit, "max_response_bytes=65536")
	// The handle stays usable, and a response under the limit is whole.
	got := rows(t, result(t, h, request(2, "r.db", in("t"), with("Fields", "id"), with("Limit", 100))))
	if len(got) != 100 {
		t.Fatalf("%d rows", len(got))
	}
	if c := count(t, h, "r.db", "t"); c != 2000 {
		t.Fatalf("count %d", c)
	}
}

func TestMaxQueryMsEndsSlowRead(t *testing.T) {
	h, dir := openTemp(t, "max_query_ms=20")
	fill(t, dir, "q.db", 3000)
	// count(*) over a 9,000,000-row cross join: seconds of work, a tiny answer.
	slow := request(1, "q.db", in("t"), with("Join", obj{{"$for", "t b"}, {"$as", "cross"}}), with("Fields", "count(*)"))
	wantCode(t, h, slow, ELimit, "max_query_ms=20")
	if c := count(t, h, "q.db", "t"); c != 3000 {
		t.Fatalf("count %d after an interrupted read", c)
	}
}

func TestMaxQueryMsRollsBackSlowWrite(t *testing.T) {
	h, dir := openTemp(t, "max_query_ms=1")
	fill(t, dir, "w.db", 200000)
	// Checks read through a second handle without a time limit.
	checkID := must(Open(dir, "max_query_ms=0"))
	defer Close(checkID)
	check, _ := Lookup(checkID)
	sum := func() int64 {
		return rows(t, result(t, check, request(1, "w.db", in("t"), with("Fields", "sum(n)"))))[0][0].(int64)
	}
	before := sum()
	// Updating 200,000 rows takes far longer than 1 ms.
	wantCode(t, h, request(2, "w.db", in("t"), with("Set", obj{{"n", 0}})), ELimit, "max_query_ms=1")
	if after := sum(); after != before {
		t.Fatalf("an interrupted write changed rows: sum %d -> %d", before, after)
	}
	// The same inside a Tx: the insert before the slow statement is undone too.
	tx := cmd{"Tx", func(b []byte) []byte {
		b = msgp.AppendArrayHeader(b, 2)
		b = appendAny(b, []any{obj{{"method", "In"}, {"args", []any{"t"}}}, obj{{"method", "Insert"}, {"args", []any{obj{{"id", -1}, {"n", 5}}}}}})
		b = appendAny(b, []any{obj{{"method", "In"}, {"args", []any{"t"}}}, obj{{"method", "Set"}, {"args", []any{obj{{"n", 0}}}}}})
		return b
	}}
	wantCode(t, h, request(3, "w.db", tx), ELimit, "max_query_ms=1")
	if c := count(t, check, "w.db", "t"); c != 200000 {
		t.Fatalf("interrupted Tx left %d rows", c)
	}
	if after := sum(); after != before {
		t.Fatalf("an interrupted Tx changed rows: sum %d -> %d", before, after)
	}
	// The writer connection is usable afterwards.
	m := result(t, h, request(4, "w.db", in("t"), with("Insert", obj{{"id", -2}, {"n", 1}})))
	if m["ra"] != int64(1) {
		t.Fatalf("insert after interrupt: %v", m)
	}
}

func TestDBNameLengthLimit(t *testing.T) {
	h, dir := openTemp(t, "")
	ok := strings.Repeat("n", MaxDBNameBytes)
	m := result(t, h, request(1, ok, in("t"), with("Insert", obj{{"a", 1}})))
	if e, _ := m["e"].(string); !strings.Contains(e, "no such table") {
		t.Fatalf("a %d-byte name must work: %v", len(ok), m)
	}
	for _, side := range []string{"", "-wal", "-shm"} {
		if _, err := os.Stat(filepath.Join(dir, ok+side)); err != nil {
			t.Fatalf("%d-byte name: %v", len(ok), err)
		}
	}
	for _, n := range []int{MaxDBNameBytes + 1, 255, 256, 4096} {
		wantCode(t, h, request(1, strings.Repeat("n", n), in("t"), with("Find", obj{})), ERequest, "must be 1 to 247 bytes")
	}
	if MaxDBNameBytes != 247 {
		t.Fatalf("MaxDBNameBytes = %d; docs/protocol.md and dal.h say 247", MaxDBNameBytes)
	}
}

// The path limit, both sides: a path of exactly maxPathBytes opens and
// writes, one byte more is DAL_E_REQUEST (SQLite itself would fail it with
// "unable to open database file", a DAL_E_DATABASE).
func TestDBNameTooLongForDataDirectory(t *testing.T) {
	deep := t.TempDir()
	for len(deep) < 380 {
		deep = filepath.Join(deep, strings.Repeat("d", 40))
	}
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	id := must(Open(deep, ""))
	defer Close(id)
	h, _ := Lookup(id)
	fits := strings.Repeat("n", maxPathBytes-len(deep)-1)
	m := result(t, h, request(1, fits, in("t"), with("Insert", obj{{"a", 1}})))
	if e, _ := m["e"].(string); !strings.Contains(e, "no such table") {
		t.Fatalf("a %d-byte path must open: %v", len(deep)+1+len(fits), m)
	}
	wantCode(t, h, request(1, fits+"n", in("t"), with("Find", obj{})), ERequest, "too long for this data directory")
}

func TestInvalidUTF8StringIsRequestError(t *testing.T) {
	h, dir := openTemp(t, "")
	createTable(t, dir, "u.db", `CREATE TABLE t (a TEXT, b BLOB)`)
	bad := string([]byte{'o', 'k', 0xff, 0xfe})
	wantCode(t, h, request(1, "u.db", in("t"), with("Insert", obj{{"a", bad}})), ERequest, "not valid UTF-8")
	wantCode(t, h, request(1, "u.db", in("t"), with("Find", obj{{"a", obj{{"$in", []any{"x", bad}}}}})), ERequest, "at byte")
	// The same bytes as bin are data, and are stored.
	m := result(t, h, request(2, "u.db", in("t"), with("Insert", obj{{"b", []byte(bad)}})))
	if m["ra"] != int64(1) {
		t.Fatalf("bin insert: %v", m)
	}
	if c := count(t, h, "u.db", "t"); c != 1 {
		t.Fatalf("%d rows; the refused str must not have been written", c)
	}
}

// The opt-in "codes" key adds SQLite's extended result code to error
// responses; without it the response is byte-for-byte the default one.
func TestErrorCodesOptIn(t *testing.T) {
	h, dir := openTemp(t, "")
	createTable(t, dir, "c.db", `CREATE TABLE kv (k TEXT UNIQUE)`)
	withCodes := func(id uint64, db string, codes any, cmds ...cmd) []byte {
		b := request(id, db, cmds...)
		b[0]++ // a fixmap of 3 becomes 4 entries; append the key at the end
		b = msgp.AppendString(b, "codes")
		return appendAny(b, codes)
	}
	ins := []cmd{in("kv"), with("Insert", obj{{"k", "x"}})}
	result(t, h, request(1, "c.db", ins...))
	m := result(t, h, withCodes(2, "c.db", true, ins...))
	if m["ec"] != int64(2067) || len(m) != 5 || !strings.Contains(m["e"].(string), "UNIQUE") { // SQLITE_CONSTRAINT_UNIQUE
		t.Fatalf("unique violation with codes: %v", m)
	}
	m = result(t, h, withCodes(3, "c.db", true, in("nosuch"), with("Find", obj{})))
	if m["ec"] != int64(1) { // SQLITE_ERROR
		t.Fatalf("no such table with codes: %v", m)
	}
	// Success responses are unchanged by the key.
	m = result(t, h, withCodes(4, "c.db", true, in("kv"), with("Insert", obj{{"k", "y"}})))
	if _, has := m["ec"]; has || m["ra"] != int64(1) {
		t.Fatalf("success with codes: %v", m)
	}
	// codes: false and no key give the default bytes.
	ref := request(9, "database.sqlite", in("data"), with("Find", obj{{"a", 1}, {"b", obj{{"$gt", 2}}}}))
	for _, req := range [][]byte{ref, withCodes(9, "database.sqlite", false, in("data"), with("Find", obj{{"a", 1}, {"b", obj{{"$gt", 2}}}}))} {
		r, err := h.Query(req)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(r.Bytes()); got != "\x84\xa1i\x09\xa2ra\x00\xa2li\x00\xa1e\xb3no such table: data" {
			t.Fatalf("default response changed: %q", got)
		}
		r.Release()
	}
	wantCode(t, h, withCodes(5, "c.db", 1, ins...), ERequest, "codes must be a boolean")
}

func must(id int64, err error) int64 {
	if err != nil {
		panic(err)
	}
	return id
}
