package query

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"dalkit/native/internal/wire"
)

func TestReference(t *testing.T) {
	raw := referenceBytes(t)
	if len(raw) != 87 {
		t.Fatalf("reference request is %d bytes, want 87", len(raw))
	}
	// The helpers encode the same bytes, so the other tests speak the real format.
	same := enc(nil, M{"id", 9, "db", "database.sqlite", "commands", A{
		cmd("In", "data"), cmd("Find", M{"a", 1, "b", M{"$gt", 2}})}})
	if !bytes.Equal(same, raw) {
		t.Fatalf("helper encoding differs from the reference:\n%x\n%x", same, raw)
	}
	r, err := build(t, raw)
	if err != nil {
		t.Fatal(err)
	}
	if r.ID != 9 || string(r.DB) != "database.sqlite" || r.Tx || len(r.Stmts) != 1 {
		t.Fatalf("envelope: %+v", r)
	}
	s := r.Stmts[0]
	if want := `SELECT * FROM "data" WHERE "a" = ? AND "b" > ?`; string(s.SQL) != want || s.Kind != Select {
		t.Fatalf("got %v %q, want %q", s.Kind, s.SQL, want)
	}
	if got := plain(s.Args); !reflect.DeepEqual(got, []any{int64(1), int64(2)}) {
		t.Fatalf("args %v", got)
	}
}

type sqlCase struct {
	name string
	cmds []M
	kind Kind
	sql  string
	args []any
}

func in(t ...any) M { return cmd("In", t...) }

func runSQL(t *testing.T, cases []sqlCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := build(t, request(c.cmds...))
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if len(r.Stmts) != 1 {
				t.Fatalf("%d statements", len(r.Stmts))
			}
			s := r.Stmts[0]
			if string(s.SQL) != c.sql {
				t.Errorf("SQL\n got %s\nwant %s", s.SQL, c.sql)
			}
			if s.Kind != c.kind {
				t.Errorf("kind %v, want %v", s.Kind, c.kind)
			}
			want := c.args
			if want == nil {
				want = []any{}
			}
			if got := plain(s.Args); !reflect.DeepEqual(got, want) {
				t.Errorf("args\n got %#v\nwant %#v", got, want)
			}
		})
	}
}

func TestSelect(t *testing.T) {
	runSQL(t, []sqlCase{
		{"in", []M{in("t")}, Select, `SELECT * FROM "t"`, nil},
		{"in alias", []M{in("t", "x")}, Select, `SELECT * FROM "t" AS "x"`, nil},
		{"in schema", []M{in("main.t")}, Select, `SELECT * FROM "main"."t"`, nil},
		{"order independent", []M{cmd("Limit", 5), cmd("Find", M{"a", 1}), in("t")}, Select,
			`SELECT * FROM "t" WHERE "a" = ? LIMIT ?`, []any{int64(1), int64(5)}},
		{"empty find", []M{in("t"), cmd("Find", M{})}, Select, `SELECT * FROM "t"`, nil},
		{"fields", []M{in("t"), cmd("Fields", "a", "t.b", "*", "t.*")}, Select, `SELECT "a", "t"."b", *, "t".* FROM "t"`, nil},
		{"select alias", []M{in("t"), cmd("Select", "a as x", "b AS y", "c As z")}, Select, `SELECT "a" AS "x", "b" AS "y", "c" AS "z" FROM "t"`, nil},
		{"aggregates", []M{in("t"), cmd("Fields", "g", "count(*)", "count(a) as n", "sum(t.a)", "AVG(a) as m", "min(a)", "max(a)"), cmd("Group", "g")}, Select,
			`SELECT "g", count(*), count("a") AS "n", sum("t"."a"), avg("a") AS "m", min("a"), max("a") FROM "t" GROUP BY "g"`, nil},
		{"group many", []M{in("t"), cmd("Group", "a", "t.b")}, Select, `SELECT * FROM "t" GROUP BY "a", "t"."b"`, nil},
		{"sort", []M{in("t"), cmd("Sort", M{"a", 1, "b", -1, "c", "asc", "d", "DESC"})}, Select,
			`SELECT * FROM "t" ORDER BY "a" ASC, "b" DESC, "c" ASC, "d" DESC`, nil},
		{"limit", []M{in("t"), cmd("Limit", 10)}, Select, `SELECT * FROM "t" LIMIT ?`, []any{int64(10)}},
		{"limit offset", []M{in("t"), cmd("Offset", 20), cmd("Limit", 10)}, Select, `SELECT * FROM "t" LIMIT ? OFFSET ?`, []any{int64(10), int64(20)}},
		{"offset only", []M{in("t"), cmd("Offset", 20)}, Select, `SELECT * FROM "t" LIMIT -1 OFFSET ?`, []any{int64(20)}},
		{"limit 0", []M{in("t"), cmd("Limit", 0)}, Select, `SELECT * FROM "t" LIMIT ?`, []any{int64(0)}},
		{"limit uint8 encoding", []M{in("t"), cmd("Limit", uint64(200))}, Select, `SELECT * FROM "t" LIMIT ?`, []any{int64(200)}},
		{"join", []M{in("posts", "p"), cmd("Join", M{"$for", "users u", "$do", M{"u.id", "p.user_id"}})}, Select,
			`SELECT * FROM "posts" AS "p" INNER JOIN "users" AS "u" ON "u"."id" = "p"."user_id"`, nil},
		{"join kinds", []M{in("a"), cmd("Join",
			M{"$for", "b", "$do", M{"b.id", "a.id"}, "$as", "left"},
			M{"$as", "cross", "$for", "c"},
			M{"$for", "d", "$as", "full outer", "$do", M{"d.id", "a.id"}},
			M{"$for", "e", "$as", "inner", "$do", M{}})}, Select,
			`SELECT * FROM "a" LEFT JOIN "b" ON "b"."id" = "a"."id" CROSS JOIN "c" FULL OUTER JOIN "d" ON "d"."id" = "a"."id" INNER JOIN "e"`, nil},
		{"join values", []M{in("p"), cmd("Join", M{"$for", "u", "$do", M{"u.id", "p.uid", "u.name", M{"$eq", "bob"}, "u.age", 3, "u.x", nil,
			"$or", A{M{"u.k", "p.k"}, M{"u.k", M{"$in", A{"a", "b"}}}}}}), cmd("Find", M{"p.z", "zz"})}, Select,
			`SELECT * FROM "p" INNER JOIN "u" ON "u"."id" = "p"."uid" AND "u"."name" = ? AND "u"."age" = ? AND "u"."x" IS NULL AND ("u"."k" = "p"."k" OR "u"."k" IN (?, ?)) WHERE "p"."z" = ?`,
			[]any{"bob", int64(3), "a", "b", "zz"}},
		{"everything", []M{cmd("Sort", M{"n", -1}), cmd("Group", "u.id"), cmd("Offset", 5), cmd("Limit", 2), cmd("Find", M{"p.ok", true}),
			cmd("Join", M{"$for", "posts p", "$do", M{"p.uid", "u.id"}, "$as", "left"}), cmd("Fields", "u.id", "count(p.id) as n"), in("users", "u")}, Select,
			`SELECT "u"."id", count("p"."id") AS "n" FROM "users" AS "u" LEFT JOIN "posts" AS "p" ON "p"."uid" = "u"."id" WHERE "p"."ok" = ? GROUP BY "u"."id" ORDER BY "n" DESC LIMIT ? OFFSET ?`,
			[]any{true, int64(2), int64(5)}},
		{"unicode ident", []M{in("tαble"), cmd("Find", M{"名前", "x", "ß2", 1})}, Select, `SELECT * FROM "tαble" WHERE "名前" = ? AND "ß2" = ?`, []any{"x", int64(1)}},
		{"dollar ident", []M{in("t"), cmd("Find", M{"a$b", 1, "_x9", 2})}, Select, `SELECT * FROM "t" WHERE "a$b" = ? AND "_x9" = ?`, []any{int64(1), int64(2)}},
	})
}

func TestFilter(t *testing.T) {
	f := func(filter M) []M { return []M{in("t"), cmd("Find", filter)} }
	const sel = `SELECT * FROM "t" WHERE `
	runSQL(t, []sqlCase{
		{"eq scalar kinds", f(M{"a", 1, "b", -2, "c", 1.5, "d", "s", "e", []byte{0, 1}, "f", true, "g", false}), Select,
			sel + `"a" = ? AND "b" = ? AND "c" = ? AND "d" = ? AND "e" = ? AND "f" = ? AND "g" = ?`,
			[]any{int64(1), int64(-2), 1.5, "s", []byte{0, 1}, true, false}},
		{"null", f(M{"a", nil}), Select, sel + `"a" IS NULL`, nil},
		{"$eq", f(M{"a", M{"$eq", 1}}), Select, sel + `"a" = ?`, []any{int64(1)}},
		{"$eq null", f(M{"a", M{"$eq", nil}}), Select, sel + `"a" IS NULL`, nil},
		{"$ne", f(M{"a", M{"$ne", "x"}}), Select, sel + `"a" != ?`, []any{"x"}},
		{"$ne null", f(M{"a", M{"$ne", nil}}), Select, sel + `"a" IS NOT NULL`, nil},
		{"comparisons", f(M{"a", M{"$gt", 1, "$gte", 2, "$lt", 3, "$lte", 4}}), Select,
			sel + `"a" > ? AND "a" >= ? AND "a" < ? AND "a" <= ?`, []any{int64(1), int64(2), int64(3), int64(4)}},
		{"$in", f(M{"a", M{"$in", A{1, "two", nil}}}), Select, sel + `"a" IN (?, ?, ?)`, []any{int64(1), "two", nil}},
		{"$nin", f(M{"a", M{"$nin", A{1}}}), Select, sel + `"a" NOT IN (?)`, []any{int64(1)}},
		{"$in empty", f(M{"a", M{"$in", A{}}}), Select, sel + `0 = 1`, nil},
		{"$nin empty", f(M{"a", M{"$nin", A{}}}), Select, sel + `1 = 1`, nil},
		{"$like", f(M{"a", M{"$like", "x%"}}), Select, sel + `"a" LIKE ?`, []any{"x%"}},
		{"$nlike", f(M{"a", M{"$nlike", "x%"}}), Select, sel + `"a" NOT LIKE ?`, []any{"x%"}},
		{"$glob", f(M{"a", M{"$glob", "x*"}}), Select, sel + `"a" GLOB ?`, []any{"x*"}},
		{"$between", f(M{"a", M{"$between", A{1, 9}}}), Select, sel + `"a" BETWEEN ? AND ?`, []any{int64(1), int64(9)}},
		{"$nbetween", f(M{"a", M{"$nbetween", A{"a", "m"}}}), Select, sel + `"a" NOT BETWEEN ? AND ?`, []any{"a", "m"}},
		{"$and", f(M{"$and", A{M{"a", 1}, M{"b", 2, "c", 3}}}), Select, sel + `("a" = ? AND "b" = ? AND "c" = ?)`, []any{int64(1), int64(2), int64(3)}},
		{"$or", f(M{"$or", A{M{"a", 1}, M{"b", 2, "c", 3}, M{"d", M{"$gt", 1, "$lt", 5}}, M{"e", M{"$gt", 0}}}}), Select,
			sel + `("a" = ? OR ("b" = ? AND "c" = ?) OR ("d" > ? AND "d" < ?) OR "e" > ?)`,
			[]any{int64(1), int64(2), int64(3), int64(1), int64(5), int64(0)}},
		{"$not", f(M{"$not", M{"a", 1, "b", 2}}), Select, sel + `NOT ("a" = ? AND "b" = ?)`, []any{int64(1), int64(2)}},
		{"nested", f(M{"x", 0, "$or", A{M{"$not", M{"a", 1}}, M{"$and", A{M{"b", 2}, M{"$or", A{M{"c", 3}, M{"d", 4}}}}}}}), Select,
			sel + `"x" = ? AND (NOT ("a" = ?) OR ("b" = ? AND ("c" = ? OR "d" = ?)))`,
			[]any{int64(0), int64(1), int64(2), int64(3), int64(4)}},
		{"empty nested filter", f(M{"$and", A{M{}}, "$not", M{}}), Select, sel + `(1 = 1) AND NOT (1 = 1)`, nil},
		{"qualified column", f(M{"t.a", 1}), Select, sel + `"t"."a" = ?`, []any{int64(1)}},
		{"string is a value outside join", f(M{"a", "b.c"}), Select, sel + `"a" = ?`, []any{"b.c"}},
		{"float32 widened", f(M{"a", Raw{0xca, 0x3f, 0xc0, 0, 0}}), Select, sel + `"a" = ?`, []any{1.5}},
		{"max int", f(M{"a", int64(math.MaxInt64), "b", int64(math.MinInt64), "c", uint64(math.MaxInt64)}), Select, sel + `"a" = ? AND "b" = ? AND "c" = ?`,
			[]any{int64(math.MaxInt64), int64(math.MinInt64), int64(math.MaxInt64)}},
	})
}

func TestWrite(t *testing.T) {
	runSQL(t, []sqlCase{
		{"insert", []M{in("t"), cmd("Insert", M{"a", 1, "b", "x"})}, Insert, `INSERT INTO "t" ("a", "b") VALUES (?, ?)`, []any{int64(1), "x"}},
		{"insert many, any key order", []M{cmd("Insert", M{"a", 1, "b", nil}, M{"b", 2.5, "a", 3}, M{"a", true, "b", []byte("z")}), in("t")}, Insert,
			`INSERT INTO "t" ("a", "b") VALUES (?, ?), (?, ?), (?, ?)`, []any{int64(1), nil, int64(3), 2.5, true, []byte("z")}},
		{"insert alias", []M{in("t", "n"), cmd("Insert", M{"a", 1})}, Insert, `INSERT INTO "t" AS "n" ("a") VALUES (?)`, []any{int64(1)}},
		{"upsert update", []M{in("t"), cmd("Insert", M{"id", 1, "a", 2, "b", 3}), cmd("OnConflict", "id"), cmd("DoUpdate", "a", "b")}, Insert,
			`INSERT INTO "t" ("id", "a", "b") VALUES (?, ?, ?) ON CONFLICT ("id") DO UPDATE SET "a" = excluded."a", "b" = excluded."b"`,
			[]any{int64(1), int64(2), int64(3)}},
		{"upsert nothing", []M{in("t"), cmd("DoNothing"), cmd("OnConflict", "a", "b"), cmd("Insert", M{"a", 1, "b", 2})}, Insert,
			`INSERT INTO "t" ("a", "b") VALUES (?, ?) ON CONFLICT ("a", "b") DO NOTHING`, []any{int64(1), int64(2)}},
		{"upsert no target", []M{in("t"), cmd("Insert", M{"a", 1}), cmd("OnConflict"), cmd("DoNothing")}, Insert,
			`INSERT INTO "t" ("a") VALUES (?) ON CONFLICT DO NOTHING`, []any{int64(1)}},
		{"set", []M{in("t"), cmd("Set", M{"a", 1, "b", nil}), cmd("Find", M{"id", 7})}, Update,
			`UPDATE "t" SET "a" = ?, "b" = ? WHERE "id" = ?`, []any{int64(1), nil, int64(7)}},
		{"set all rows", []M{in("t"), cmd("Set", M{"a", 1})}, Update, `UPDATE "t" SET "a" = ?`, []any{int64(1)}},
		{"set complex where", []M{in("t", "x"), cmd("Find", M{"$or", A{M{"a", M{"$in", A{1, 2}}}, M{"b", nil}}}), cmd("Set", M{"c", "v"})}, Update,
			`UPDATE "t" AS "x" SET "c" = ? WHERE ("a" IN (?, ?) OR "b" IS NULL)`, []any{"v", int64(1), int64(2)}},
		{"delete", []M{in("t"), cmd("Delete"), cmd("Find", M{"a", M{"$lt", 0}})}, Delete, `DELETE FROM "t" WHERE "a" < ?`, []any{int64(0)}},
		{"delete all", []M{cmd("Delete"), in("t")}, Delete, `DELETE FROM "t"`, nil},
	})
}

func TestTx(t *testing.T) {
	raw := request(cmd("Tx",
		A{in("a"), cmd("Insert", M{"x", 1})},
		A{cmd("Set", M{"y", 2}), in("b"), cmd("Find", M{"id", 3})},
		A{in("c"), cmd("Delete"), cmd("Find", M{"id", M{"$in", A{4, 5}}})},
		A{in("d"), cmd("Insert", M{"k", 6}), cmd("OnConflict", "k"), cmd("DoNothing")},
	))
	r, err := build(t, raw)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind Kind
		sql  string
		args []any
	}{
		{Insert, `INSERT INTO "a" ("x") VALUES (?)`, []any{int64(1)}},
		{Update, `UPDATE "b" SET "y" = ? WHERE "id" = ?`, []any{int64(2), int64(3)}},
		{Delete, `DELETE FROM "c" WHERE "id" IN (?, ?)`, []any{int64(4), int64(5)}},
		{Insert, `INSERT INTO "d" ("k") VALUES (?) ON CONFLICT ("k") DO NOTHING`, []any{int64(6)}},
	}
	if !r.Tx || len(r.Stmts) != len(want) {
		t.Fatalf("Tx %v, %d statements", r.Tx, len(r.Stmts))
	}
	for i, w := range want {
		s := r.Stmts[i]
		if s.Kind != w.kind || string(s.SQL) != w.sql || !reflect.DeepEqual(plain(s.Args), w.args) {
			t.Errorf("stmt %d: %v %s %v, want %v %s %v", i, s.Kind, s.SQL, plain(s.Args), w.kind, w.sql, w.args)
		}
		// Statement slices are capped: appending to one cannot clobber the next.
		if cap(s.SQL) != len(s.SQL) || cap(s.Args) != len(s.Args) {
			t.Errorf("stmt %d: slices not capped", i)
		}
	}
}

// TestReuse builds different requests with one Builder: nothing leaks from
// one request into the next.
func TestReuse(t *testing.T) {
	var d wire.Decoder
	var b Builder
	reqs := [][]byte{
		request(in("t"), cmd("Find", M{"a", 1}), cmd("Limit", 3)),
		request(cmd("Tx", A{in("a"), cmd("Delete")}, A{in("b"), cmd("Delete")})),
		request(in("t"), cmd("Fnd", M{})), // error
		referenceBytes(t),
	}
	want := []string{`SELECT * FROM "t" WHERE "a" = ? LIMIT ?`, `DELETE FROM "a"|DELETE FROM "b"`, "error", `SELECT * FROM "data" WHERE "a" = ? AND "b" > ?`}
	for round := 0; round < 3; round++ {
		for i, raw := range reqs {
			d.Reset()
			v, err := d.Decode(raw)
			if err != nil {
				t.Fatal(err)
			}
			r, err := b.Build(v)
			got := "error"
			if err == nil {
				var parts []string
				for _, s := range r.Stmts {
					parts = append(parts, string(s.SQL))
				}
				got = strings.Join(parts, "|")
				if r.Tx != (i == 1) {
					t.Errorf("request %d: Tx %v", i, r.Tx)
				}
			}
			if got != want[i] {
				t.Errorf("round %d request %d: %s, want %s", round, i, got, want[i])
			}
		}
	}
}

func TestParamLimit(t *testing.T) {
	list := make(A, MaxParams)
	for i := range list {
		list[i] = i
	}
	r, err := build(t, request(in("t"), cmd("Find", M{"a", M{"$in", list}})))
	if err != nil || len(r.Stmts[0].Args) != MaxParams {
		t.Fatalf("at the limit: %v", err)
	}
	_, err = build(t, request(in("t"), cmd("Find", M{"a", M{"$in", list}, "b", 1})))
	if err == nil || !strings.Contains(err.Error(), "at most 32766") {
		t.Fatalf("over the limit: %v", err)
	}
	// LIMIT counts too.
	_, err = build(t, request(in("t"), cmd("Find", M{"a", M{"$in", list}}), cmd("Limit", 1)))
	if err == nil || !strings.Contains(err.Error(), "at most 32766") {
		t.Fatalf("over the limit with LIMIT: %v", err)
	}
	rows := make([]any, 16384)
	for i := range rows {
		rows[i] = M{"a", i, "b", i}
	}
	_, err = build(t, request(in("t"), cmd("Insert", rows...)))
	if err == nil || !strings.Contains(err.Error(), "32768 parameters") {
		t.Fatalf("insert over the limit: %v", err)
	}
	// Tx: the limit is per statement.
	_, err = build(t, request(cmd("Tx", A{in("t"), cmd("Delete"), cmd("Find", M{"a", M{"$in", list}})}, A{in("t"), cmd("Delete"), cmd("Find", M{"a", M{"$in", list}})})))
	if err != nil {
		t.Fatalf("Tx at the limit per statement: %v", err)
	}
}

func TestDepthLimit(t *testing.T) {
	// Deep $not nesting fails cleanly in the decoder or the builder, never by stack overflow.
	var f any = M{"a", 1}
	for i := 0; i < 70; i++ {
		f = M{"$not", f}
	}
	var d wire.Decoder
	_, err := d.Decode(request(in("t"), cmd("Find", f)))
	if err == nil {
		t.Fatal("expected a depth error")
	}
	// A tree built without the decoder is bounded by the builder itself.
	v := wire.Value{Kind: wire.Map, Items: []wire.Value{wire.MakeStr("a"), wire.MakeInt(1)}}
	for i := 0; i < 100; i++ {
		v = wire.Value{Kind: wire.Map, Items: []wire.Value{wire.MakeStr("$not"), v}}
	}
	var b Builder
	b.p.has = setOf(mIn, mFind)
	b.p.args[mIn] = wire.Value{Kind: wire.Array, Items: []wire.Value{wire.MakeStr("t")}}
	b.p.args[mFind] = wire.Value{Kind: wire.Array, Items: []wire.Value{v}}
	if _, err := b.statement(); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("builder depth: %v", err)
	}
}
