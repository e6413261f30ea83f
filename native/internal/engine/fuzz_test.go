package engine

import (
	"testing"

	"github.com/tinylib/msgp/msgp"
)

// FuzzQuery drives the whole pipeline -- decode, build, database, SQLite,
// response -- with arbitrary bytes against a real database. Every input must
// end as either a call failure with a dal.h code or a response that is one
// well-formed MessagePack map echoing an id; nothing may panic. The limits
// are small so that a fuzzed cross join ends quickly (and the limit paths
// are fuzzed too). `go test` replays the seeds; run it longer with
// `go test -run ^$ -fuzz ^FuzzQuery$ -fuzztime 60s ./internal/engine`.
func FuzzQuery(f *testing.F) {
	f.Add(request(9, "database.sqlite", in("data"), with("Find", obj{{"a", 1}, {"b", obj{{"$gt", 2}}}})))
	f.Add(request(1, "f.db", in("t"), with("Insert", obj{{"id", 1}, {"name", "x"}})))
	f.Add(request(2, "f.db", in("t"), with("Find", obj{{"id", obj{{"$in", []any{1, 2}}}}}), with("Set", obj{{"name", "y"}})))
	f.Add(request(3, "f.db", in("t"), with("Join", obj{{"$for", "t b"}, {"$as", "cross"}}), with("Fields", "count(*)")))
	f.Add(request(4, "f.db", in("t"), with("Find", obj{{"name", obj{{"$like", "%"}}}}), with("Delete")))

	dir := f.TempDir()
	createTable(f, dir, "f.db", `CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE, n REAL);
		WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 500)
		INSERT INTO t (name, n) SELECT 'r' || x, x / 3.0 FROM c`)
	id, err := Open(dir, "max_query_ms=100;max_response_bytes=65536;max_databases=4")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { Close(id) })
	h, _ := Lookup(id)

	f.Fuzz(func(t *testing.T, req []byte) {
		r, err := h.Query(req)
		if err != nil {
			e, ok := err.(*Error)
			if !ok || e.Code > EHandle || e.Code < ELimit || e.Msg == "" {
				t.Fatalf("failure %T %v is not a dal.h code with a message", err, err)
			}
			return
		}
		defer r.Release()
		v, rest, err := msgp.ReadIntfBytes(r.Bytes())
		if err != nil || len(rest) != 0 {
			t.Fatalf("response is not one MessagePack value: %v (%d trailing bytes)", err, len(rest))
		}
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("response is not a map: %T", v)
		}
		if _, ok := m["i"]; !ok {
			t.Fatalf("response has no id: %v", m)
		}
	})
}
