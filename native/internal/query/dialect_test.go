package query

import (
	"strings"
	"testing"

	"dalkit/native/internal/wire"
)

// buildIn decodes and builds raw in dialect d with fresh state.
func buildIn(t *testing.T, d Dialect, raw []byte) (*Request, error) {
	t.Helper()
	var dec wire.Decoder
	v, err := dec.Decode(raw)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	var b Builder
	b.SetDialect(d)
	return b.Build(v)
}

// Every difference of the PostgreSQL dialect, next to the SQLite text of
// the same request (dialect.go's table).
func TestPostgresDialectSQL(t *testing.T) {
	cases := []struct {
		name           string
		cmds           []M
		sqlite, postgr string
	}{
		{"placeholders numbered per statement",
			[]M{in("t"), cmd("Find", M{"a", 1, "b", M{"$in", A{2, 3}}}), cmd("Limit", 5)},
			`SELECT * FROM "t" WHERE "a" = ? AND "b" IN (?, ?) LIMIT ?`,
			`SELECT * FROM "t" WHERE "a" = $1 AND "b" IN ($2, $3) LIMIT $4`},
		{"offset without limit",
			[]M{in("t"), cmd("Offset", 2)},
			`SELECT * FROM "t" LIMIT -1 OFFSET ?`,
			`SELECT * FROM "t" OFFSET $1`},
		{"limit and offset",
			[]M{in("t"), cmd("Limit", 1), cmd("Offset", 2)},
			`SELECT * FROM "t" LIMIT ? OFFSET ?`,
			`SELECT * FROM "t" LIMIT $1 OFFSET $2`},
		{"like is case-insensitive without an escape character",
			[]M{in("t"), cmd("Find", M{"a", M{"$like", "A%", "$nlike", "b_"}})},
			`SELECT * FROM "t" WHERE "a" LIKE ? AND "a" NOT LIKE ?`,
			`SELECT * FROM "t" WHERE "a" ILIKE $1 ESCAPE '' AND "a" NOT ILIKE $2 ESCAPE ''`},
		{"upsert",
			[]M{in("t"), cmd("Insert", M{"k", "x", "v", 1}), cmd("OnConflict", "k"), cmd("DoUpdate", "v")},
			`INSERT INTO "t" ("k", "v") VALUES (?, ?) ON CONFLICT ("k") DO UPDATE SET "v" = excluded."v"`,
			`INSERT INTO "t" ("k", "v") VALUES ($1, $2) ON CONFLICT ("k") DO UPDATE SET "v" = excluded."v"`},
		{"do nothing without a target",
			[]M{in("t"), cmd("Insert", M{"k", "x"}), cmd("OnConflict"), cmd("DoNothing")},
			`INSERT INTO "t" ("k") VALUES (?) ON CONFLICT DO NOTHING`,
			`INSERT INTO "t" ("k") VALUES ($1) ON CONFLICT DO NOTHING`},
		{"nulls sort as in SQLite",
			[]M{in("t"), cmd("Sort", M{"a", 1, "b", "desc"})},
			`SELECT * FROM "t" ORDER BY "a" ASC, "b" DESC`,
			`SELECT * FROM "t" ORDER BY "a" ASC NULLS FIRST, "b" DESC NULLS LAST`},
		{"aggregates named as in SQLite",
			[]M{in("t"), cmd("Fields", "count(*)", "SUM(t.a)", "max(b) as m")},
			`SELECT count(*), sum("t"."a"), max("b") AS "m" FROM "t"`,
			`SELECT count(*) AS "count(*)", sum("t"."a") AS "sum(""t"".""a"")", max("b") AS "m" FROM "t"`},
		{"joins without $do",
			[]M{in("t"), cmd("Join", M{"$for", "u"}, M{"$for", "v", "$as", "left", "$do", M{}}, M{"$for", "w", "$as", "cross"})},
			`SELECT * FROM "t" INNER JOIN "u" LEFT JOIN "v" CROSS JOIN "w"`,
			`SELECT * FROM "t" INNER JOIN "u" ON 1 = 1 LEFT JOIN "v" ON 1 = 1 CROSS JOIN "w"`},
		{"cross join with $do",
			[]M{in("t"), cmd("Join", M{"$for", "u", "$as", "cross", "$do", M{"u.a", "t.a"}})},
			`SELECT * FROM "t" CROSS JOIN "u" ON "u"."a" = "t"."a"`,
			`SELECT * FROM "t" INNER JOIN "u" ON "u"."a" = "t"."a"`},
		{"qualified columns stay qualified",
			[]M{in("u", "a"), cmd("Join", M{"$for", "p b", "$do", M{"b.uid", "a.id"}}), cmd("Fields", "a.*", "b.x")},
			`SELECT "a".*, "b"."x" FROM "u" AS "a" INNER JOIN "p" AS "b" ON "b"."uid" = "a"."id"`,
			`SELECT "a".*, "b"."x" FROM "u" AS "a" INNER JOIN "p" AS "b" ON "b"."uid" = "a"."id"`},
	}
	for _, c := range cases {
		for _, d := range []struct {
			dialect Dialect
			want    string
		}{{SQLite, c.sqlite}, {PostgreSQL, c.postgr}} {
			r, err := buildIn(t, d.dialect, request(c.cmds...))
			if err != nil {
				t.Fatalf("%s (%s): %v", c.name, d.dialect, err)
			}
			if got := string(r.Stmts[0].SQL); got != d.want {
				t.Errorf("%s (%s):\n got %s\nwant %s", c.name, d.dialect, got, d.want)
			}
		}
	}
	// A Tx numbers each statement's placeholders from $1.
	r, err := buildIn(t, PostgreSQL, request(cmd("Tx", A{in("t"), cmd("Insert", M{"a", 1})}, A{in("t"), cmd("Set", M{"a", 2}), cmd("Find", M{"b", 3})})))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(r.Stmts[1].SQL); got != `UPDATE "t" SET "a" = $1 WHERE "b" = $2` {
		t.Errorf("Tx statement 2: %s", got)
	}
}

// What PostgreSQL would answer differently from SQLite is refused, with a
// message that says why.
func TestPostgresDialectRefusals(t *testing.T) {
	long := strings.Repeat("c", 64)
	cases := []struct {
		name string
		cmds []M
		msg  string
	}{
		{"glob", []M{in("t"), cmd("Find", M{"a", M{"$glob", "a*"}})}, "PostgreSQL has no GLOB"},
		{"glob in $or", []M{in("t"), cmd("Find", M{"$or", A{M{"a", 1}, M{"b", M{"$glob", "?"}}}})}, "PostgreSQL has no GLOB"},
		{"qualified table", []M{in("other.t")}, "a table is a plain name"},
		{"qualified join table", []M{in("t"), cmd("Join", M{"$for", "other.u"})}, "a table is a plain name"},
		{"64-byte column", []M{in("t"), cmd("Find", M{long, 1})}, "PostgreSQL keeps at most 63"},
		{"64-byte table", []M{in(long)}, "PostgreSQL keeps at most 63"},
		{"64-byte field alias", []M{in("t"), cmd("Fields", "a as "+long)}, "PostgreSQL keeps at most 63"},
		{"64-byte insert column", []M{in("t"), cmd("Insert", M{long, 1})}, "PostgreSQL keeps at most 63"},
		{"aggregate label too long", []M{in("t"), cmd("Fields", "sum("+long[:30]+"."+long[:30]+")")}, "PostgreSQL keeps at most 63"},
		{"do update without target", []M{in("t"), cmd("Insert", M{"k", 1}), cmd("OnConflict"), cmd("DoUpdate", "k")}, "needs conflict columns on PostgreSQL"},
	}
	for _, c := range cases {
		if _, err := buildIn(t, SQLite, request(c.cmds...)); err != nil {
			t.Errorf("%s: SQLite refuses it too (%v); the case tests nothing PostgreSQL-specific", c.name, err)
		}
		_, err := buildIn(t, PostgreSQL, request(c.cmds...))
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.msg)
		}
	}
	// 63 bytes is accepted.
	if _, err := buildIn(t, PostgreSQL, request(in(long[:63]), cmd("Find", M{long[:63], 1}))); err != nil {
		t.Errorf("63-byte names: %v", err)
	}
}

// The shape cache never hands one dialect's SQL to a request of the other.
func TestShapeCacheKeepsDialectsApart(t *testing.T) {
	raw := request(in("t"), cmd("Find", M{"a", 1}))
	var b Builder
	for i := 0; i < 3; i++ {
		for _, d := range []Dialect{SQLite, PostgreSQL, SQLite} {
			b.SetDialect(d)
			r, ok := b.Cached(raw)
			if !ok {
				var dec wire.Decoder
				v, err := dec.Decode(raw)
				if err != nil {
					t.Fatal(err)
				}
				if r, err = b.Build(v); err != nil {
					t.Fatal(err)
				}
				b.Remember(raw, r)
			}
			want := map[Dialect]string{SQLite: `SELECT * FROM "t" WHERE "a" = ?`, PostgreSQL: `SELECT * FROM "t" WHERE "a" = $1`}[d]
			if got := string(r.Stmts[0].SQL); got != want {
				t.Fatalf("round %d, %s (cached %v): %s", i, d, ok, got)
			}
		}
	}
}
