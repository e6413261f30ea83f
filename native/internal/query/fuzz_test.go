package query

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"dalkit/native/internal/wire"
)

// seeds are valid requests covering each method family; they seed FuzzBuild
// and are written to testdata/fuzz/FuzzBuild by TestWriteSeedCorpus.
func seeds() map[string][]byte {
	ref, _ := hexDecode(referenceHex)
	return map[string][]byte{
		"reference": ref,
		"select": request(in("users", "u"), cmd("Fields", "u.id", "count(p.id) as n", "u.*"),
			cmd("Join", M{"$for", "posts p", "$do", M{"p.uid", "u.id", "p.kind", M{"$eq", "x"}}, "$as", "left"}),
			cmd("Group", "u.id"), cmd("Sort", M{"n", -1, "u.id", "asc"}), cmd("Limit", 10), cmd("Offset", 5)),
		"filter": request(in("t"), cmd("Find", M{"a", nil, "b", M{"$ne", nil, "$gte", 1.5, "$lt", 9}, "$or", A{M{"c", M{"$in", A{1, "x", true}}}, M{"$not", M{"d", M{"$like", "a%"}}}},
			"$and", A{M{"e", M{"$between", A{1, 2}}}, M{"f", M{"$nin", A{}}}, M{"g", M{"$glob", "*x"}}, M{"h", M{"$nbetween", A{"a", "b"}}}, M{"i", M{"$nlike", "%"}}}})),
		"offset":    request(in("t"), cmd("Offset", 3), cmd("Select", "*")),
		"insert":    request(in("t"), cmd("Insert", M{"a", 1, "b", "x"}, M{"b", []byte{0}, "a", nil})),
		"upsert":    request(in("t"), cmd("Insert", M{"id", 1, "v", 2}), cmd("OnConflict", "id"), cmd("DoUpdate", "v")),
		"donothing": request(in("t"), cmd("Insert", M{"id", 1}), cmd("OnConflict"), cmd("DoNothing")),
		"update":    request(in("t"), cmd("Set", M{"a", 1, "b", false}), cmd("Find", M{"id", M{"$in", A{1, 2}}})),
		"delete":    request(in("t"), cmd("Delete"), cmd("Find", M{"id", 3})),
		"tx": request(cmd("Tx", A{in("a"), cmd("Insert", M{"x", 1})}, A{in("b"), cmd("Set", M{"y", 2}), cmd("Find", M{"id", 3})},
			A{in("c"), cmd("Delete")})),
		"unicode": request(in("tαble"), cmd("Find", M{"名前", "x'; DROP TABLE t; --"})),
		"codes":   withCodes(request(in("t"), cmd("Insert", M{"k", "dup"}))),
	}
}

// withCodes adds the optional envelope key "codes": true to a request made by
// request() (a fixmap of 3 entries becomes 4).
func withCodes(req []byte) []byte {
	out := append([]byte{req[0] + 1}, req[1:]...)
	return append(out, 0xa5, 'c', 'o', 'd', 'e', 's', 0xc3)
}

func hexDecode(s string) ([]byte, error) {
	out := make([]byte, len(s)/2)
	for i := range out {
		v, err := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		if err != nil {
			return nil, err
		}
		out[i] = byte(v)
	}
	return out, nil
}

func FuzzBuild(f *testing.F) {
	for _, s := range seeds() {
		f.Add(s)
	}
	var d wire.Decoder
	var b Builder
	var cd wire.Decoder // for the shape cache path, as the engine runs it
	var cb Builder
	var pb Builder // the PostgreSQL dialect
	pb.SetDialect(PostgreSQL)
	f.Fuzz(func(t *testing.T, raw []byte) {
		// Twice: a miss that remembers the shape, then (for a request that
		// builds) a hit; both must be what fresh state builds, whatever
		// shapes earlier inputs left in the cache.
		want := fresh(raw)
		for i := 0; i < 2; i++ {
			if got, _ := viaCache(&cb, &cd, raw); got != want {
				t.Fatalf("through the shape cache (pass %d):\n%s\nwant\n%s", i+1, got, want)
			}
		}
		d.Reset()
		v, err := d.Decode(raw)
		if err != nil {
			return
		}
		if r, err := pb.Build(v); err == nil {
			checkInvariants(t, r, PostgreSQL)
		} else if !errors.As(err, new(*Error)) {
			t.Fatalf("PostgreSQL: error %T is not *query.Error: %v", err, err)
		}
		r, err := b.Build(v)
		if err != nil {
			var qe *Error
			if !errors.As(err, &qe) {
				t.Fatalf("error %T is not *query.Error: %v", err, err)
			}
			return
		}
		checkInvariants(t, r, SQLite)
	})
}

// checkPostgresPlaceholders: outside quoted identifiers (which may hold
// $1), a PostgreSQL statement's placeholders are $1 .. $n in order, one
// per arg, and there is no '?'.
func checkPostgresPlaceholders(t *testing.T, i int, s Stmt) {
	t.Helper()
	var bare []byte // the SQL without its quoted identifiers
	for j, quoted := 0, false; j < len(s.SQL); j++ {
		if c := s.SQL[j]; c == '"' {
			quoted = !quoted // a doubled "" closes and reopens
		} else if !quoted {
			bare = append(bare, c)
		}
	}
	if bytes.IndexByte(bare, '?') >= 0 {
		t.Fatalf("stmt %d: '?' in PostgreSQL SQL %s", i, s.SQL)
	}
	n := 0
	for j := 0; j < len(bare); j++ {
		if bare[j] != '$' {
			continue
		}
		k := j + 1
		for k < len(bare) && bare[k] >= '0' && bare[k] <= '9' {
			k++
		}
		n++
		if string(bare[j+1:k]) != strconv.Itoa(n) {
			t.Fatalf("stmt %d: placeholder %d is %s: %s", i, n, bare[j:k], s.SQL)
		}
	}
	if n != len(s.Args) {
		t.Fatalf("stmt %d: %d placeholders, %d args: %s", i, n, len(s.Args), s.SQL)
	}
}

func checkInvariants(t *testing.T, r *Request, d Dialect) {
	t.Helper()
	if len(r.DB) == 0 {
		t.Fatal("empty db accepted")
	}
	if !r.Tx && len(r.Stmts) != 1 || len(r.Stmts) == 0 {
		t.Fatalf("Tx %v with %d statements", r.Tx, len(r.Stmts))
	}
	for i, s := range r.Stmts {
		if n := bytes.Count(s.SQL, []byte("?")); n != len(s.Args) && d == SQLite {
			t.Fatalf("stmt %d: %d placeholders, %d args: %s", i, n, len(s.Args), s.SQL)
		}
		if len(s.Args) > MaxParams {
			t.Fatalf("stmt %d: %d args", i, len(s.Args))
		}
		if bytes.IndexByte(s.SQL, 0) >= 0 {
			t.Fatalf("stmt %d: NUL in SQL %q", i, s.SQL)
		}
		// ESCAPE '' is the PostgreSQL dialect's one literal (dialect.go).
		sql := bytes.ReplaceAll(s.SQL, []byte(" ESCAPE ''"), nil)
		if bytes.Contains(sql, []byte("--")) || bytes.Contains(sql, []byte("/*")) || bytes.ContainsAny(sql, "';`[]") {
			t.Fatalf("stmt %d: suspicious SQL %q", i, s.SQL)
		}
		if r.Tx && s.Kind == Select {
			t.Fatalf("stmt %d: SELECT in Tx", i)
		}
		if d == PostgreSQL {
			checkPostgresPlaceholders(t, i, s)
		}
		for j, a := range s.Args {
			switch a.Kind {
			case wire.Nil, wire.Bool, wire.Int, wire.Float, wire.Str, wire.Bin:
			default:
				t.Fatalf("stmt %d arg %d: kind %s", i, j, a.Kind)
			}
		}
	}
}

// TestSeeds runs the seeds through the invariants as an ordinary test.
func TestSeeds(t *testing.T) {
	for name, s := range seeds() {
		r, err := build(t, s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkInvariants(t, r, SQLite)
	}
}

// TestWriteSeedCorpus regenerates testdata/fuzz/FuzzBuild/seed-* when
// DALKIT_WRITE_CORPUS=1; the files are committed so that plain `go test`
// replays them.
func TestWriteSeedCorpus(t *testing.T) {
	if os.Getenv("DALKIT_WRITE_CORPUS") != "1" {
		t.Skip("set DALKIT_WRITE_CORPUS=1 to regenerate the seed corpus")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzBuild")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, s := range seeds() {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(s)))
		if err := os.WriteFile(filepath.Join(dir, "seed-"+name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
