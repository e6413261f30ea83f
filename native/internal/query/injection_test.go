package query

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"dalkit/native/internal/wire"
)

// requireUTF8Error: a str that is not valid UTF-8 is refused by the decoder,
// before any statement is built.
func requireUTF8Error(t *testing.T, raw []byte) {
	t.Helper()
	var d wire.Decoder
	_, err := d.Decode(raw)
	var ue *wire.UTF8Error
	if !errors.As(err, &ue) {
		t.Fatalf("invalid UTF-8 in a str: got %v, want *wire.UTF8Error", err)
	}
}

var hostile = []string{
	`"`, `'`, "`", `[`, `]`, `;`, `.`, `--`, `/*`, `*/`, "\x00", "a\x00b",
	`x'; DROP TABLE t; --`, `x"; DROP TABLE t; --`, `a" OR "1"="1`, `?`, `?1`, `:a`, `@a`, `$a`,
	"tαble", "😀", "\u200fabc", "a\u202eb", "\u00a0", "a b", "a\tb", "a\nb", "\xff\xfe", "\u2028",
	`t.c.d`, `a.`, `.a`, `"t"`, `[t]`, "`t`", `t--`, `t/*`, `a;b`, `a,b`, `a)b`, `a(b`, `*`, ``,
}

// TestInjectionValues: whatever a value contains, the SQL text is the same
// as for a benign value and the value travels only in Args.
func TestInjectionValues(t *testing.T) {
	shapes := []struct {
		name string
		cmds func(v any) []M
	}{
		{"find", func(v any) []M { return []M{in("t"), cmd("Find", M{"a", v})} }},
		{"ops", func(v any) []M {
			return []M{in("t"), cmd("Find", M{"a", M{"$ne", v, "$gt", v, "$in", A{v, v}, "$between", A{v, v}}})}
		}},
		{"like", func(v any) []M {
			if b, ok := v.([]byte); ok { // patterns are strings only
				v = string(b)
			}
			return []M{in("t"), cmd("Find", M{"a", M{"$like", v, "$nlike", v, "$glob", v}})}
		}},
		{"or", func(v any) []M { return []M{in("t"), cmd("Find", M{"$or", A{M{"a", v}, M{"$not", M{"b", v}}}})} }},
		{"join $eq", func(v any) []M {
			return []M{in("t"), cmd("Join", M{"$for", "u", "$do", M{"u.a", M{"$eq", v}}})}
		}},
		{"insert", func(v any) []M { return []M{in("t"), cmd("Insert", M{"a", v, "b", v}, M{"b", v, "a", v})} }},
		{"set", func(v any) []M { return []M{in("t"), cmd("Set", M{"a", v}), cmd("Find", M{"b", v})} }},
		{"delete", func(v any) []M { return []M{in("t"), cmd("Delete"), cmd("Find", M{"b", M{"$nin", A{v}}})} }},
		{"tx", func(v any) []M { return []M{cmd("Tx", A{in("t"), cmd("Delete"), cmd("Find", M{"a", v})})} }},
	}
	for _, sh := range shapes {
		benign, err := build(t, request(sh.cmds("x")...))
		if err != nil {
			t.Fatalf("%s: %v", sh.name, err)
		}
		wantSQL := string(benign.Stmts[0].SQL)
		for _, h := range hostile {
			for _, v := range []any{h, []byte(h)} {
				_, isStr := v.(string)
				if (isStr || sh.name == "like") && !utf8.ValidString(h) {
					requireUTF8Error(t, request(sh.cmds(v)...)) // bytes travel as bin
					continue
				}
				r, err := build(t, request(sh.cmds(v)...))
				if err != nil {
					t.Fatalf("%s %q: %v", sh.name, h, err)
				}
				s := r.Stmts[0]
				if string(s.SQL) != wantSQL {
					t.Errorf("%s %q: SQL %s differs from benign %s", sh.name, h, s.SQL, wantSQL)
				}
				if len(s.Args) != len(benign.Stmts[0].Args) {
					t.Errorf("%s %q: %d args, want %d", sh.name, h, len(s.Args), len(benign.Stmts[0].Args))
				}
				for _, a := range s.Args {
					if string(a.Bytes) != h {
						t.Errorf("%s %q: arg %q", sh.name, h, a.Bytes)
					}
				}
			}
		}
	}
}

// TestInjectionIdentifiers: every identifier position refuses hostile names,
// and legal unicode letters come out quoted exactly once per part.
func TestInjectionIdentifiers(t *testing.T) {
	positions := []struct {
		name string
		cmds func(id string) []M
	}{
		{"In table", func(id string) []M { return []M{in(id)} }},
		{"In alias", func(id string) []M { return []M{in("t", id)} }},
		{"Find column", func(id string) []M { return []M{in("t"), cmd("Find", M{id, 1})} }},
		{"op column", func(id string) []M { return []M{in("t"), cmd("Find", M{id, M{"$in", A{1}}})} }},
		{"Fields", func(id string) []M { return []M{in("t"), cmd("Fields", id)} }},
		{"Fields alias", func(id string) []M { return []M{in("t"), cmd("Fields", "a as "+id)} }},
		{"aggregate arg", func(id string) []M { return []M{in("t"), cmd("Fields", "sum("+id+")")} }},
		{"Sort", func(id string) []M { return []M{in("t"), cmd("Sort", M{id, 1})} }},
		{"Group", func(id string) []M { return []M{in("t"), cmd("Group", id)} }},
		{"Join $for", func(id string) []M { return []M{in("t"), cmd("Join", M{"$for", id})} }},
		{"Join $for alias", func(id string) []M { return []M{in("t"), cmd("Join", M{"$for", "u " + id})} }},
		{"Join $do right", func(id string) []M { return []M{in("t"), cmd("Join", M{"$for", "u", "$do", M{"u.a", id}})} }},
		{"Insert column", func(id string) []M { return []M{in("t"), cmd("Insert", M{id, 1})} }},
		{"Set column", func(id string) []M { return []M{in("t"), cmd("Set", M{id, 1})} }},
		{"OnConflict", func(id string) []M {
			return []M{in("t"), cmd("Insert", M{"a", 1}), cmd("OnConflict", id), cmd("DoNothing")}
		}},
		{"DoUpdate", func(id string) []M {
			return []M{in("t"), cmd("Insert", M{"a", 1}), cmd("OnConflict", "a"), cmd("DoUpdate", id)}
		}},
	}
	legal := map[string]bool{"tαble": true}
	for _, p := range positions {
		for _, h := range hostile {
			if !utf8.ValidString(h) {
				requireUTF8Error(t, request(p.cmds(h)...))
				continue
			}
			r, err := build(t, request(p.cmds(h)...))
			if legal[h] {
				if err != nil {
					t.Errorf("%s %q: %v", p.name, h, err)
				} else if !bytes.Contains(r.Stmts[0].SQL, []byte(`"`+h+`"`)) {
					t.Errorf("%s %q: not quoted in %s", p.name, h, r.Stmts[0].SQL)
				}
				continue
			}
			// "*" is a legal field and "a b" a legal "table alias" in $for.
			if err == nil && !(h == "*" && p.name == "Fields") && !(h == "a b" && p.name == "Join $for") {
				t.Errorf("%s %q: accepted: %s", p.name, h, r.Stmts[0].SQL)
			}
			if err != nil && h != "" && !strings.Contains(err.Error(), q([]byte(h))[1:len(q([]byte(h)))-1]) {
				t.Errorf("%s %q: message does not name it: %v", p.name, h, err)
			}
		}
	}
}

// TestValueKindsNotSpliced: the SQL for each scalar kind has the same shape.
func TestValueKindsNotSpliced(t *testing.T) {
	var want string
	for i, v := range []any{nil, true, 1, -1, 1.5, "s", []byte("b")} {
		if v == nil {
			continue // nil is IS NULL by design
		}
		r, err := build(t, request(in("t"), cmd("Find", M{"a", M{"$gt", v}})))
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			want = string(r.Stmts[0].SQL)
		} else if string(r.Stmts[0].SQL) != want {
			t.Errorf("%v: %s", v, r.Stmts[0].SQL)
		}
		if !reflect.DeepEqual(len(r.Stmts[0].Args), 1) {
			t.Errorf("%v: args %d", v, len(r.Stmts[0].Args))
		}
	}
}
