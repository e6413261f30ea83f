package query

import (
	"errors"
	"math"
	"strings"
	"testing"

	"dalkit/native/internal/wire"
)

// Each case lists substrings the message must contain: the offender and what is valid.
func TestErrors(t *testing.T) {
	env := func(kv ...any) []byte { return enc(nil, M(kv)) }
	ref := A{cmd("In", "t")}
	cases := []struct {
		name string
		raw  []byte
		want []string
	}{
		// envelope
		{"not a map", enc(nil, A{}), []string{"request must be a map", "got array"}},
		{"unknown key", env("id", 1, "db", "d", "commands", ref, "xx", 1), []string{`unknown key "xx"`, "valid keys: id, db, commands"}},
		{"duplicate key", env("id", 1, "db", "d", "id", 2, "commands", ref), []string{`duplicate key "id"`}},
		{"missing id", env("db", "d", "commands", ref), []string{`missing key "id"`}},
		{"missing db", env("id", 1, "commands", ref), []string{`missing key "db"`}},
		{"missing commands", env("id", 1, "db", "d"), []string{`missing key "commands"`}},
		{"id string", env("id", "1", "db", "d", "commands", ref), []string{"id must be a non-negative integer, got string"}},
		{"id negative", env("id", -1, "db", "d", "commands", ref), []string{"id must be an integer in 0 .. 2^63-1"}},
		{"id too big", env("id", uint64(math.MaxUint64), "db", "d", "commands", ref), []string{"0 .. 2^63-1"}},
		{"db empty", env("id", 1, "db", "", "commands", ref), []string{"db must be a non-empty string"}},
		{"db binary", env("id", 1, "db", []byte("x"), "commands", ref), []string{"db must be a string", "got binary"}},
		{"commands map", env("id", 1, "db", "d", "commands", M{}), []string{"commands must be an array", "got map"}},
		{"int key", env(1, 1, "id", 1, "db", "d", "commands", ref), []string{"request keys must be strings, got integer"}},
		// commands
		{"command not map", request(), []string{"missing In"}},
		{"command unknown key", enc(nil, M{"id", 1, "db", "d", "commands", A{M{"method", "In", "args", A{"t"}, "argz", 1}}}), []string{`command 1: unknown key "argz"`, "valid keys: method, args"}},
		{"command missing args", enc(nil, M{"id", 1, "db", "d", "commands", A{M{"method", "In"}}}), []string{"In: missing key \"args\""}},
		{"command args not array", enc(nil, M{"id", 1, "db", "d", "commands", A{M{"method", "In", "args", "t"}}}), []string{"In: args must be an array, got string"}},
		{"method not string", enc(nil, M{"id", 1, "db", "d", "commands", A{M{"method", 3, "args", A{}}}}), []string{"method must be a string, got integer"}},
		{"unknown method", request(in("t"), cmd("Fnd", M{})), []string{`unknown method "Fnd"`, "valid methods: In, Find, Fields, Select, Sort, Limit, Offset, Join, Group, Insert, Set, Delete, OnConflict, DoUpdate, DoNothing, Tx"}},
		{"method case", request(cmd("in", "t")), []string{`unknown method "in"`, "valid methods: In,"}},
		{"duplicate method", request(in("t"), cmd("Limit", 1), cmd("Limit", 2)), []string{"method Limit used twice"}},
		{"Fields and Select", request(in("t"), cmd("Fields", "a"), cmd("Select", "b")), []string{"Fields and Select", "same method"}},
		{"missing In", request(cmd("Find", M{"a", 1})), []string{"missing In"}},
		// argument types
		{"In number", request(cmd("In", 1)), []string{"In: argument 1 must be a string (table), got integer"}},
		{"In too many", request(cmd("In", "a", "b", "c")), []string{"In: takes 1 to 2 arguments, got 3"}},
		{"In alias qualified", request(cmd("In", "a", "b.c")), []string{`invalid identifier "b.c"`, "qualifier is not allowed"}},
		{"Find array", request(in("t"), cmd("Find", A{})), []string{"Find: argument 1 must be a filter map, got array"}},
		{"Find two args", request(in("t"), cmd("Find", M{}, M{})), []string{"Find: takes 1 argument(s), got 2"}},
		{"Limit string", request(in("t"), cmd("Limit", "10")), []string{"Limit: argument 1 must be a non-negative integer, got string"}},
		{"Limit negative", request(in("t"), cmd("Limit", -1)), []string{"Limit: argument 1 must be a non-negative integer, got -1"}},
		{"Limit float", request(in("t"), cmd("Limit", 1.0)), []string{"got float"}},
		{"Limit huge", request(in("t"), cmd("Limit", uint64(math.MaxUint64))), []string{"Limit", "integer out of range"}},
		{"Offset none", request(in("t"), cmd("Offset")), []string{"Offset: takes 1 argument(s), got 0"}},
		{"Fields empty", request(in("t"), cmd("Fields")), []string{"Fields: needs at least 1 argument(s), got 0"}},
		{"Fields number", request(in("t"), cmd("Select", 1)), []string{"Select: argument 1 must be a string, got integer"}},
		{"Fields unknown aggregate", request(in("t"), cmd("Fields", "total(a)")), []string{`unknown aggregate "total"`, "valid aggregates: count, sum, avg, min, max"}},
		{"Fields sum star", request(in("t"), cmd("Fields", "sum(*)")), []string{`invalid identifier "*"`}},
		{"Fields expression", request(in("t"), cmd("Fields", "a+b")), []string{`invalid identifier "a+b"`}},
		{"Fields bad as", request(in("t"), cmd("Fields", "a ass b")), []string{`invalid field "a ass b"`, "optionally followed by"}},
		{"Fields two spaces", request(in("t"), cmd("Fields", "a  as b")), []string{`invalid field "a  as b"`}},
		{"Fields star alias", request(in("t"), cmd("Fields", "* as x")), []string{"cannot have an alias"}},
		{"Sort bad dir", request(in("t"), cmd("Sort", M{"a", 2})), []string{`Sort: direction of "a" must be 1, -1, "asc" or "desc", got integer`}},
		{"Sort array", request(in("t"), cmd("Sort", A{"a"})), []string{"Sort: argument 1 must be a non-empty map", "got array of 1"}},
		{"Sort empty", request(in("t"), cmd("Sort", M{})), []string{"Sort: argument 1 must be a non-empty map"}},
		{"Group number", request(in("t"), cmd("Group", 1)), []string{"Group: argument 1 must be a string"}},
		{"Join no for", request(in("t"), cmd("Join", M{"$do", M{"a", "b"}})), []string{"Join 1: missing $for"}},
		{"Join bad as", request(in("t"), cmd("Join", M{"$for", "u", "$as", "outer"})), []string{`Join 1: unknown join type "outer"`, `valid: "inner", "left", "cross", "full outer"`}},
		{"Join unknown key", request(in("t"), cmd("Join", M{"$for", "u", "$on", M{}})), []string{`Join 1: unknown key "$on"`, "valid keys: $for, $do, $as"}},
		{"Join for three words", request(in("t"), cmd("Join", M{"$for", "u v w"})), []string{`invalid identifier "v w"`}},
		{"Join do string value", request(in("t"), cmd("Join", M{"$for", "u", "$do", M{"u.name", "bob smith"}})), []string{`Join 1: $do: column "u.name" compared with a plain string`, `{$eq: "text"}`, `invalid identifier "bob smith"`}},
		{"Join not map", request(in("t"), cmd("Join", "u")), []string{"Join 1: must be a map {$for, $do, $as}, got string"}},
		{"Insert empty", request(in("t"), cmd("Insert")), []string{"Insert: needs at least 1 argument(s)"}},
		{"Insert empty row", request(in("t"), cmd("Insert", M{})), []string{"Insert: row 1 must be a non-empty map"}},
		{"Insert different keys", request(in("t"), cmd("Insert", M{"a", 1, "b", 2}, M{"a", 1, "c", 2})), []string{`Insert: row 2 has no column "b"`}},
		{"Insert different count", request(in("t"), cmd("Insert", M{"a", 1}, M{"a", 1, "b", 2})), []string{"Insert: row 2 has 2 columns, row 1 has 1"}},
		{"Insert duplicate column", request(in("t"), cmd("Insert", M{"a", 1, "a", 2})), []string{`Insert: duplicate column "a"`}},
		{"Insert duplicate in later row", request(in("t"), cmd("Insert", M{"a", 1, "b", 2}, M{"a", 1, "a", 2})), []string{`row 2 has no column "b"`}},
		{"Insert array value", request(in("t"), cmd("Insert", M{"a", A{1}})), []string{`Insert: row 1, column "a": value must be a scalar, got array`}},
		{"Insert qualified column", request(in("t"), cmd("Insert", M{"t.a", 1})), []string{`Insert: invalid identifier "t.a"`}},
		{"Insert uint", request(in("t"), cmd("Insert", M{"a", uint64(1 << 63)})), []string{`Insert: row 1, column "a": integer out of range: 9223372036854775808`}},
		{"Find on Insert", request(in("t"), cmd("Insert", M{"a", 1}), cmd("Find", M{"a", 1})), []string{"Find cannot be used with Insert"}},
		{"Sort on Delete", request(in("t"), cmd("Delete"), cmd("Sort", M{"a", 1})), []string{"Sort cannot be used with Delete", "valid methods with Delete: In, Find, Delete"}},
		{"Limit on Set", request(in("t"), cmd("Set", M{"a", 1}), cmd("Limit", 1)), []string{"Limit cannot be used with Set"}},
		{"Insert and Delete", request(in("t"), cmd("Insert", M{"a", 1}), cmd("Delete")), []string{"Insert, Delete cannot be combined"}},
		{"Delete args", request(in("t"), cmd("Delete", 1)), []string{"Delete: takes no arguments, got 1"}},
		{"Set two", request(in("t"), cmd("Set", M{"a", 1}, M{"b", 1})), []string{"Set: takes 1 argument(s), got 2"}},
		{"Set empty", request(in("t"), cmd("Set", M{})), []string{"Set: argument 1 must be a non-empty map"}},
		{"Set map value", request(in("t"), cmd("Set", M{"a", M{}})), []string{`Set: column "a": value must be a scalar, got map`}},
		{"Set duplicate", request(in("t"), cmd("Set", M{"a", 1, "a", 2})), []string{`Set: duplicate column "a"`}},
		{"OnConflict alone", request(in("t"), cmd("Insert", M{"a", 1}), cmd("OnConflict", "a")), []string{"OnConflict needs exactly one of DoUpdate or DoNothing"}},
		{"DoUpdate alone", request(in("t"), cmd("Insert", M{"a", 1}), cmd("DoUpdate", "a")), []string{"DoUpdate needs OnConflict"}},
		{"DoNothing and DoUpdate", request(in("t"), cmd("Insert", M{"a", 1}), cmd("OnConflict", "a"), cmd("DoUpdate", "a"), cmd("DoNothing")), []string{"DoUpdate and DoNothing cannot be combined"}},
		{"DoUpdate empty", request(in("t"), cmd("Insert", M{"a", 1}), cmd("OnConflict", "a"), cmd("DoUpdate")), []string{"DoUpdate: needs at least 1"}},
		{"OnConflict on select", request(in("t"), cmd("OnConflict", "a")), []string{"OnConflict needs Insert"}},
		{"DoNothing args", request(in("t"), cmd("Insert", M{"a", 1}), cmd("OnConflict", "a"), cmd("DoNothing", "a")), []string{"DoNothing: takes no arguments"}},
		// filters
		{"unknown operator", request(in("t"), cmd("Find", M{"b", M{"$gtx", 1}})), []string{`unknown operator "$gtx" on column "b"`, "valid operators: $eq, $ne, $gt, $gte, $lt, $lte, $in, $nin, $like, $nlike, $glob, $between, $nbetween"}},
		{"operator without $", request(in("t"), cmd("Find", M{"b", M{"gt", 1}})), []string{`unknown operator "gt" on column "b"`}},
		{"unknown logical", request(in("t"), cmd("Find", M{"$nor", A{}})), []string{`unknown operator "$nor" in filter`, "valid here: $and, $or, $not"}},
		{"top-level comparison", request(in("t"), cmd("Find", M{"$gt", 1})), []string{`unknown operator "$gt" in filter`}},
		{"logical in op map", request(in("t"), cmd("Find", M{"a", M{"$or", A{}}})), []string{`unknown operator "$or" on column "a"`}},
		{"empty op map", request(in("t"), cmd("Find", M{"a", M{}})), []string{`column "a": empty operator map`}},
		{"array value", request(in("t"), cmd("Find", M{"a", A{1}})), []string{`column "a": value must be a scalar or an operator map, got array`, "$in"}},
		{"$in scalar", request(in("t"), cmd("Find", M{"a", M{"$in", 1}})), []string{`$in on column "a": value must be an array of scalars, got integer`}},
		{"$in nested", request(in("t"), cmd("Find", M{"a", M{"$nin", A{1, A{}}}})), []string{`$nin on column "a": element 2 must be a scalar, got array`}},
		{"$like number", request(in("t"), cmd("Find", M{"a", M{"$like", 1}})), []string{`$like on column "a": value must be a string pattern, got integer`}},
		{"$glob bin", request(in("t"), cmd("Find", M{"a", M{"$glob", []byte("x")}})), []string{"$glob", "got binary"}},
		{"$between one", request(in("t"), cmd("Find", M{"a", M{"$between", A{1}}})), []string{`$between on column "a": value must be an array [low, high] of two scalars, got array of 1`}},
		{"$gt map", request(in("t"), cmd("Find", M{"a", M{"$gt", M{}}})), []string{`$gt on column "a": value must be a scalar, got map`}},
		{"$and empty", request(in("t"), cmd("Find", M{"$and", A{}})), []string{"$and: needs a non-empty array"}},
		{"$or map", request(in("t"), cmd("Find", M{"$or", M{}})), []string{"$or: value must be an array of filter maps, got map"}},
		{"$or element", request(in("t"), cmd("Find", M{"$or", A{M{}, 1}})), []string{"$or: element 2 must be a filter map, got integer"}},
		{"$not array", request(in("t"), cmd("Find", M{"$not", A{}})), []string{"$not: value must be a filter map, got array"}},
		{"uint value", request(in("t"), cmd("Find", M{"a", uint64(math.MaxUint64)})), []string{`column "a": integer out of range: 18446744073709551615`}},
		{"uint in $in", request(in("t"), cmd("Find", M{"a", M{"$in", A{uint64(1 << 63)}}})), []string{`column "a": integer out of range`}},
		{"filter int key", request(in("t"), cmd("Find", M{1, 1})), []string{"filter keys must be strings", "got integer"}},
		// Tx
		{"Tx with other", request(in("t"), cmd("Tx", A{in("t"), cmd("Delete")})), []string{"a request with Tx contains nothing else, found In"}},
		{"Tx empty", request(cmd("Tx")), []string{"Tx: needs at least one command list"}},
		{"Tx not list", request(cmd("Tx", M{})), []string{"Tx: argument 1 must be a command list", "got map"}},
		{"Tx select", request(cmd("Tx", A{in("t"), cmd("Delete")}, A{in("t"), cmd("Find", M{})})), []string{"Tx: command list 2 is a SELECT; only Insert, Set and Delete"}},
		{"Tx nested", request(cmd("Tx", A{cmd("Tx", A{})})), []string{"Tx: command list 1: Tx cannot be nested"}},
		{"Tx inner error", request(cmd("Tx", A{in("t"), cmd("Delete"), cmd("Find", M{"a", M{"$x", 1}})})), []string{`Tx: command list 1: unknown operator "$x" on column "a"`}},
		{"Tx missing In", request(cmd("Tx", A{cmd("Delete")})), []string{"Tx: command list 1: missing In"}},
		{"Tx duplicate inside", request(cmd("Tx", A{in("t"), in("u"), cmd("Delete")})), []string{"Tx: command list 1: method In used twice"}},
		// long offender truncated
		{"long identifier", request(in(strings.Repeat("a", 129))), []string{"invalid identifier", "...", "at most 128 bytes"}},
		{"long unknown method", request(cmd(strings.Repeat("x", 1000))), []string{`unknown method "xxxxxxxx`, `"...;`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := build(t, c.raw)
			if err == nil {
				t.Fatalf("no error; built %q", r.Stmts[0].SQL)
			}
			var qe *Error
			if !errors.As(err, &qe) {
				t.Fatalf("error is %T, want *query.Error", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q\n lacks %q", err.Error(), w)
				}
			}
			if len(err.Error()) > 600 {
				t.Errorf("message is %d bytes", len(err.Error()))
			}
		})
	}
}

func TestIdentifierLimits(t *testing.T) {
	ok := [][]byte{[]byte(strings.Repeat("a", 128)), []byte("a." + strings.Repeat("b", 128)), []byte("_"), []byte("a1$"), []byte("Ω"), []byte("x٣")}
	bad := [][]byte{[]byte(strings.Repeat("a", 129)), []byte(""), []byte("."), []byte("a."), []byte(".a"), []byte("a.b.c"), []byte("1a"), []byte("$a"), []byte("٣x"), {0xff}, []byte("a\xc3")}
	for _, s := range ok {
		if !validIdent(s, 2) {
			t.Errorf("%q refused", s)
		}
	}
	for _, s := range bad {
		if validIdent(s, 2) {
			t.Errorf("%q accepted", s)
		}
	}
	var b Builder
	if b.Build(wire.Value{}); b.req.Stmts != nil {
		t.Error("failed Build left statements")
	}
}
