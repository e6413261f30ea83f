package engine

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/tinylib/msgp/msgp"
)

// sameSchema is SQL that both SQLite and PostgreSQL run, with the same
// meaning: the tables of the differential test.
const sameSchema = `CREATE TABLE u (id integer PRIMARY KEY, name text, age integer, score double precision, pic bytea, flag boolean);
CREATE TABLE p (id integer PRIMARY KEY, uid integer, amount bigint);
CREATE TABLE kv (k text PRIMARY KEY, v integer)`

// TestPostgresAnswersAsSQLite runs every method, filter and operator of
// docs/protocol.md on a SQLite handle and on a PostgreSQL handle and
// requires the same answer: byte for byte for rows, the same rows affected
// for writes (li is 0 on PostgreSQL: no rowid), an error response on both
// for a failed statement (the messages are each server's own). Each step's
// writes are checked by reading every table back.
func TestPostgresAnswersAsSQLite(t *testing.T) {
	pg := openPG(t, pgURL(t), "")
	sq, dir := openTemp(t, "")
	db := freshSchema(t)
	createTable(t, dir, db, sameSchema)
	execPG(t, pg, db, sameSchema)

	steps := []struct {
		name string
		cmds []cmd
	}{
		{"insert u", []cmd{in("u"), with("Insert",
			obj{{"id", 1}, {"name", "ann"}, {"age", 31}, {"score", 1.5}, {"pic", []byte{0, 1, 2}}, {"flag", true}},
			obj{{"id", 2}, {"name", "Bob"}, {"age", 17}, {"score", 2.25}, {"pic", nil}, {"flag", false}},
			obj{{"id", 3}, {"name", "cy%"}, {"age", 45}, {"score", nil}, {"pic", []byte{}}, {"flag", nil}},
			obj{{"id", 4}, {"name", "d_x"}, {"age", 7}, {"score", -0.5}, {"pic", []byte{255}}, {"flag", true}},
			obj{{"id", 5}, {"name", `e\f`}, {"age", nil}, {"score", 1e300}, {"pic", nil}, {"flag", false}},
			obj{{"id", 6}, {"name", nil}, {"age", 0}, {"score", 3.0}, {"pic", nil}, {"flag", nil}},
		)}},
		{"insert p", []cmd{in("p"), with("Insert",
			obj{{"id", 1}, {"uid", 1}, {"amount", 10}}, obj{{"id", 2}, {"uid", 1}, {"amount", 20}},
			obj{{"id", 3}, {"uid", 2}, {"amount", 5}}, obj{{"id", 4}, {"uid", 9}, {"amount", -3}},
			obj{{"id", 5}, {"uid", 4}, {"amount", 9223372036854775807}}, obj{{"id", 6}, {"uid", 4}, {"amount", -9223372036854775808}},
		)}},
		{"all", []cmd{in("u"), with("Sort", obj{{"id", 1}})}},
		{"eq", []cmd{in("u"), with("Find", obj{{"name", "Bob"}})}},
		{"eq is case-sensitive", []cmd{in("u"), with("Find", obj{{"name", "bob"}})}},
		{"eq null", []cmd{in("u"), with("Find", obj{{"age", nil}})}},
		{"$eq/$ne null", []cmd{in("u"), with("Find", obj{{"score", obj{{"$ne", nil}}}, {"pic", obj{{"$eq", nil}}}}), with("Sort", obj{{"id", 1}})}},
		{"$ne", []cmd{in("u"), with("Find", obj{{"age", obj{{"$ne", 17}}}}), with("Sort", obj{{"id", -1}})}},
		{"ranges", []cmd{in("u"), with("Find", obj{{"age", obj{{"$gt", 0}, {"$lte", 31}}}, {"score", obj{{"$gte", -0.5}, {"$lt", 2.25}}}}), with("Sort", obj{{"id", 1}})}},
		{"text ranges", []cmd{in("u"), with("Find", obj{{"name", obj{{"$gt", "Bob"}, {"$lt", "d"}}}}), with("Sort", obj{{"name", 1}})}},
		{"$in", []cmd{in("u"), with("Find", obj{{"id", obj{{"$in", []any{2, 4, 99}}}}}), with("Sort", obj{{"id", 1}})}},
		{"$nin", []cmd{in("u"), with("Find", obj{{"id", obj{{"$nin", []any{2, 4}}}}}), with("Sort", obj{{"id", 1}})}},
		{"empty $in", []cmd{in("u"), with("Find", obj{{"id", obj{{"$in", []any{}}}}})}},
		{"empty $nin", []cmd{in("u"), with("Find", obj{{"id", obj{{"$nin", []any{}}}}}), with("Sort", obj{{"id", 1}})}},
		{"$like ignores ASCII case", []cmd{in("u"), with("Find", obj{{"name", obj{{"$like", "B%"}}}}), with("Sort", obj{{"id", 1}})}},
		{"$like lower", []cmd{in("u"), with("Find", obj{{"name", obj{{"$like", "%O%"}}}})}},
		{"$like has no escape character", []cmd{in("u"), with("Find", obj{{"name", obj{{"$like", `e\%`}}}})}},
		{"$like backslash is literal", []cmd{in("u"), with("Find", obj{{"name", obj{{"$like", `cy\%`}}}})}},
		{"$like underscore", []cmd{in("u"), with("Find", obj{{"name", obj{{"$like", "d_x"}}}})}},
		{"$nlike", []cmd{in("u"), with("Find", obj{{"name", obj{{"$nlike", "%y%"}}}}), with("Sort", obj{{"id", 1}})}},
		{"$between", []cmd{in("u"), with("Find", obj{{"age", obj{{"$between", []any{7, 31}}}}}), with("Sort", obj{{"id", 1}})}},
		{"$nbetween", []cmd{in("u"), with("Find", obj{{"age", obj{{"$nbetween", []any{7, 31}}}}}), with("Sort", obj{{"id", 1}})}},
		{"$or $and $not", []cmd{in("u"), with("Find", obj{{"$or", []any{
			obj{{"age", obj{{"$lt", 10}}}, {"flag", true}},
			obj{{"$not", obj{{"name", obj{{"$like", "%a%"}}}}}, {"$and", []any{obj{{"score", obj{{"$gt", 2}}}}, obj{}}}},
		}}}), with("Sort", obj{{"id", 1}})}},
		{"booleans filter", []cmd{in("u"), with("Find", obj{{"flag", true}}), with("Fields", "id", "flag"), with("Sort", obj{{"id", 1}})}},
		{"booleans false", []cmd{in("u"), with("Find", obj{{"flag", false}}), with("Fields", "id", "flag"), with("Sort", obj{{"id", 1}})}},
		{"fields", []cmd{in("u"), with("Fields", "name", "u.age", "score as s"), with("Sort", obj{{"id", 1}})}},
		{"aggregates", []cmd{in("u"), with("Fields", "count(*)", "count(age)", "min(name)", "max(age)", "sum(age)")}},
		{"avg", []cmd{in("u"), with("Find", obj{{"id", obj{{"$in", []any{1, 2, 6}}}}}), with("Fields", "avg(age) as a")}},
		{"sum of floats", []cmd{in("u"), with("Find", obj{{"id", obj{{"$lt", 5}}}}), with("Fields", "sum(score) as s")}},
		{"extreme integers", []cmd{in("p"), with("Find", obj{{"uid", 4}}), with("Sort", obj{{"id", 1}})}},
		{"sort nulls", []cmd{in("u"), with("Fields", "id", "age"), with("Sort", obj{{"age", 1}, {"id", 1}})}},
		{"sort nulls desc", []cmd{in("u"), with("Fields", "id", "score"), with("Sort", obj{{"score", "desc"}})}},
		{"sort text", []cmd{in("u"), with("Fields", "name"), with("Sort", obj{{"name", "asc"}})}},
		{"limit", []cmd{in("u"), with("Sort", obj{{"id", 1}}), with("Limit", 2)}},
		{"offset alone", []cmd{in("u"), with("Sort", obj{{"id", 1}}), with("Offset", 4)}},
		{"limit offset", []cmd{in("u"), with("Sort", obj{{"id", 1}}), with("Limit", 2), with("Offset", 1)}},
		{"limit 0", []cmd{in("u"), with("Limit", 0)}},
		{"join", []cmd{in("u"), with("Join", obj{{"$for", "p"}, {"$do", obj{{"p.uid", "u.id"}}}}),
			with("Fields", "u.name", "p.amount"), with("Sort", obj{{"p.id", 1}})}},
		{"left join alias", []cmd{with("In", "u", "a"), with("Join", obj{{"$for", "p b"}, {"$do", obj{{"b.uid", "a.id"}}}, {"$as", "left"}}),
			with("Fields", "a.id", "b.amount"), with("Sort", obj{{"a.id", 1}, {"b.id", 1}})}},
		{"join without $do", []cmd{in("u"), with("Join", obj{{"$for", "p"}}), with("Fields", "count(*)")}},
		{"cross join with $do", []cmd{in("u"), with("Join", obj{{"$for", "p"}, {"$as", "cross"}, {"$do", obj{{"p.uid", "u.id"}, {"p.amount", obj{{"$gt", 5}}}}}}),
			with("Fields", "u.id", "p.id"), with("Sort", obj{{"p.id", 1}})}},
		{"group", []cmd{in("p"), with("Fields", "uid", "count(*) as n", "sum(amount) as total"), with("Find", obj{{"uid", obj{{"$lt", 4}}}}),
			with("Group", "uid"), with("Sort", obj{{"uid", 1}})}},
		{"set", []cmd{in("u"), with("Find", obj{{"name", "Bob"}}), with("Set", obj{{"age", 18}, {"flag", true}})}},
		{"set none", []cmd{in("u"), with("Find", obj{{"id", 99}}), with("Set", obj{{"age", 1}})}},
		{"delete", []cmd{in("p"), with("Find", obj{{"amount", obj{{"$lt", 0}}}}), with("Delete")}},
		{"kv", []cmd{in("kv"), with("Insert", obj{{"k", "x"}, {"v", 1}}, obj{{"v", 2}, {"k", "y"}})}},
		{"duplicate", []cmd{in("kv"), with("Insert", obj{{"k", "x"}, {"v", 3}})}},
		{"do nothing", []cmd{in("kv"), with("Insert", obj{{"k", "x"}, {"v", 4}}), with("OnConflict", "k"), with("DoNothing")}},
		{"do nothing without target", []cmd{in("kv"), with("Insert", obj{{"k", "y"}, {"v", 4}}), with("OnConflict"), with("DoNothing")}},
		{"do update", []cmd{in("kv"), with("Insert", obj{{"k", "x"}, {"v", 5}}, obj{{"k", "z"}, {"v", 6}}), with("OnConflict", "k"), with("DoUpdate", "v")}},
		{"kv after", []cmd{in("kv"), with("Sort", obj{{"k", 1}})}},
		{"tx", []cmd{txOf(
			[]cmd{in("kv"), with("Insert", obj{{"k", "t1"}, {"v", 1}})},
			[]cmd{in("kv"), with("Find", obj{{"k", "x"}}), with("Set", obj{{"v", 50}})},
			[]cmd{in("p"), with("Find", obj{{"id", 1}}), with("Delete")},
		)}},
		{"tx rolled back", []cmd{txOf(
			[]cmd{in("kv"), with("Insert", obj{{"k", "t2"}, {"v", 1}})},
			[]cmd{in("kv"), with("Find", obj{{"k", "y"}}), with("Set", obj{{"v", 60}})},
			[]cmd{in("kv"), with("Insert", obj{{"k", "x"}, {"v", 1}})},
		)}},
		{"kv after tx", []cmd{in("kv"), with("Sort", obj{{"k", 1}})}},
		{"missing table", []cmd{in("nosuch")}},
		{"missing column", []cmd{in("u"), with("Find", obj{{"nosuch", 1}})}},
		{"u after", []cmd{in("u"), with("Sort", obj{{"id", 1}})}},
		{"p after", []cmd{in("p"), with("Sort", obj{{"id", 1}})}},
	}
	for i, s := range steps {
		req := request(uint64(100+i), db, s.cmds...)
		a, b := rawAnswer(t, sq, req), rawAnswer(t, pg, req)
		sameAnswer(t, s.name, a, b)
	}
}

// txOf is a Tx command of the given command lists.
func txOf(lists ...[]cmd) cmd {
	return cmd{"Tx", func(b []byte) []byte {
		b = msgp.AppendArrayHeader(b, uint32(len(lists)))
		for _, l := range lists {
			b = appendCommands(b, l)
		}
		return b
	}}
}

func rawAnswer(t *testing.T, h *Handle, req []byte) []byte {
	t.Helper()
	r, err := h.Query(req)
	if err != nil {
		t.Fatalf("query failed: %v", err)
	}
	defer r.Release()
	return bytes.Clone(r.Bytes())
}

func decoded(t *testing.T, b []byte) map[string]any {
	t.Helper()
	v, rest, err := msgp.ReadIntfBytes(b)
	if err != nil || len(rest) != 0 {
		t.Fatalf("bad response: %v (%d trailing)", err, len(rest))
	}
	return v.(map[string]any)
}

// sameAnswer compares SQLite's answer sq with PostgreSQL's pg.
func sameAnswer(t *testing.T, name string, sq, pg []byte) {
	t.Helper()
	ms, mp := decoded(t, sq), decoded(t, pg)
	switch {
	case ms["r"] != nil:
		if !bytes.Equal(sq, pg) {
			t.Errorf("%s: rows differ\nSQLite     %v\nPostgreSQL %v", name, ms, mp)
		}
	case ms["e"] != nil:
		if mp["e"] == nil {
			t.Errorf("%s: SQLite failed (%v), PostgreSQL did not: %v", name, ms["e"], mp)
		}
	default:
		if mp["e"] != nil || fmt.Sprint(mp["ra"]) != fmt.Sprint(ms["ra"]) || mp["li"] != int64(0) {
			t.Errorf("%s: SQLite %v, PostgreSQL %v (want the same ra, li 0)", name, ms, mp)
		}
	}
}
