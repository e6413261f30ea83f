package query

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"dalkit/native/internal/wire"
)

// outcome renders what a request builds to, or its error, for comparison.
func outcome(r *Request, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	var s strings.Builder
	fmt.Fprintf(&s, "id=%d db=%q tx=%v codes=%v", r.ID, r.DB, r.Tx, r.Codes)
	for _, st := range r.Stmts {
		fmt.Fprintf(&s, "\n%s %s %#v", st.Kind, st.SQL, plain(st.Args))
	}
	return s.String()
}

// fresh builds raw with new state and no cache.
func fresh(raw []byte) string {
	var d wire.Decoder
	v, err := d.Decode(raw)
	if err != nil {
		return "decode error: " + err.Error()
	}
	var b Builder
	return outcome(b.Build(v))
}

// viaCache builds raw as the engine does (engine/pipeline.go): the shape
// cache, else decode, build and remember.
func viaCache(b *Builder, d *wire.Decoder, raw []byte) (out string, hit bool) {
	defer func() { b.Reset(); d.Reset() }()
	if r, ok := b.Cached(raw); ok {
		return outcome(r, nil), true
	}
	v, err := d.Decode(raw)
	if err != nil {
		return "decode error: " + err.Error(), false
	}
	r, err := b.Build(v)
	if err != nil {
		var qe *Error
		if !errors.As(err, &qe) {
			return "non-query error: " + err.Error(), false
		}
		return outcome(nil, err), false
	}
	b.Remember(raw, r)
	return outcome(r, nil), false
}

func env(id any, db string, cmds ...M) []byte {
	list := make(A, len(cmds))
	for i, c := range cmds {
		list[i] = c
	}
	return enc(nil, M{"id", id, "db", db, "commands", list})
}

// shapeVariants differ from one another in one thing the SQL or the
// validation depends on, each next to its neighbours: a wrong hit between
// any two of them shows as a different outcome.
func shapeVariants() map[string][]byte {
	in := cmd("In", "t")
	find := func(f any) []byte { return env(1, "t.db", in, cmd("Find", f)) }
	return map[string][]byte{
		"eq":            find(M{"a", 1}),
		"eq str":        find(M{"a", "x"}),
		"eq nil":        find(M{"a", nil}),
		"eq bool":       find(M{"a", true}),
		"eq float":      find(M{"a", 1.5}),
		"eq bin":        find(M{"a", []byte{1}}),
		"eq uint":       find(M{"a", uint64(math.MaxUint64)}),
		"other column":  find(M{"b", 1}),
		"gt":            find(M{"a", M{"$gt", 1}}),
		"lt":            find(M{"a", M{"$lt", 1}}),
		"gte":           find(M{"a", M{"$gte", 1}}),
		"ne nil":        find(M{"a", M{"$ne", nil}}),
		"ne":            find(M{"a", M{"$ne", 1}}),
		"like str":      find(M{"a", M{"$like", "x%"}}),
		"like int":      find(M{"a", M{"$like", 1}}),
		"two keys ab":   find(M{"a", 1, "b", 2}),
		"two keys ba":   find(M{"b", 1, "a", 2}),
		"two ops":       find(M{"a", M{"$gt", 1, "$lt", 9}}),
		"in 1":          find(M{"a", M{"$in", A{1}}}),
		"in 2":          find(M{"a", M{"$in", A{1, 2}}}),
		"in 3":          find(M{"a", M{"$in", A{1, 2, 3}}}),
		"in 0":          find(M{"a", M{"$in", A{}}}),
		"nin 2":         find(M{"a", M{"$nin", A{1, 2}}}),
		"in nested":     find(M{"a", M{"$in", A{1, A{2}}}}),
		"between":       find(M{"a", M{"$between", A{1, 2}}}),
		"or":            find(M{"$or", A{M{"a", 1}, M{"b", 2}}}),
		"and":           find(M{"$and", A{M{"a", 1}, M{"b", 2}}}),
		"or nested":     find(M{"$or", A{M{"a", 1}, M{"$and", A{M{"b", 2}, M{"c", 3}}}}}),
		"not":           find(M{"$not", M{"a", 1}}),
		"limit 5":       env(1, "t.db", in, cmd("Limit", 5)),
		"limit 6":       env(1, "t.db", in, cmd("Limit", 6)),
		"limit -1":      env(1, "t.db", in, cmd("Limit", -1)),
		"limit str":     env(1, "t.db", in, cmd("Limit", "5")),
		"offset":        env(1, "t.db", in, cmd("Limit", 5), cmd("Offset", 2)),
		"sort":          env(1, "t.db", in, cmd("Sort", "a")),
		"sort desc":     env(1, "t.db", in, cmd("Sort", "-a")),
		"fields":        env(1, "t.db", in, cmd("Fields", "a", "b")),
		"fields count":  env(1, "t.db", in, cmd("Fields", "count(*)")),
		"delete":        env(1, "t.db", in, cmd("Find", M{"a", 1}), cmd("Delete")),
		"set":           env(1, "t.db", in, cmd("Find", M{"a", 1}), cmd("Set", M{"b", 2})),
		"set two":       env(1, "t.db", in, cmd("Find", M{"a", 1}), cmd("Set", M{"b", 2, "c", 3})),
		"insert":        env(1, "t.db", in, cmd("Insert", M{"a", 1})),
		"insert str":    env(1, "t.db", in, cmd("Insert", M{"a", "x"})),
		"insert rows":   env(1, "t.db", in, cmd("Insert", A{M{"a", 1}, M{"a", 2}})),
		"insert map":    env(1, "t.db", in, cmd("Insert", M{"a", M{"b", 1}})),
		"other table":   env(1, "t.db", cmd("In", "u"), cmd("Find", M{"a", 1})),
		"other db":      env(1, "u.db", in, cmd("Find", M{"a", 1})),
		"id negative":   env(-1, "t.db", in, cmd("Find", M{"a", 1})),
		"id 2":          env(2, "t.db", in, cmd("Find", M{"a", 1})),
		"id str":        env("1", "t.db", in, cmd("Find", M{"a", 1})),
		"codes":         enc(nil, M{"id", 1, "db", "t.db", "commands", A{in, cmd("Find", M{"a", 1})}, "codes", true}),
		"tx one":        env(1, "t.db", cmd("Tx", A{in, cmd("Insert", M{"a", 1})})),
		"tx two":        env(1, "t.db", cmd("Tx", A{in, cmd("Insert", M{"a", 1})}, A{in, cmd("Find", M{"a", 2}), cmd("Delete")})),
		"bad utf8 free": find(M{"a", Raw{0xa1, 0xff}}),
		"bad utf8 key":  find(M{Raw{0xa1, 0xff}, 1}),
		"reference":     nil, // filled in by the test from the protocol's bytes
	}
}

func TestShapeCacheNeverConfusesShapes(t *testing.T) {
	variants := shapeVariants()
	variants["reference"] = referenceBytes(t)
	want := map[string]string{}
	for name, raw := range variants {
		want[name] = fresh(raw)
	}
	var b Builder
	var d wire.Decoder
	// Every variant after every other, so each is looked up while the
	// other is the Builder's recent shape and in the cache.
	for first, a := range variants {
		for second, c := range variants {
			viaCache(&b, &d, a)
			if got, _ := viaCache(&b, &d, c); got != want[second] {
				t.Fatalf("%s after %s built\n%s\nwant\n%s", second, first, got, want[second])
			}
		}
	}
}

func TestShapeCacheHitsOnSameShapeWithOtherValues(t *testing.T) {
	in := cmd("In", "t")
	pairs := [][2][]byte{
		{env(1, "t.db", in, cmd("Find", M{"a", 1, "b", M{"$gt", 2}})), env(99, "t.db", in, cmd("Find", M{"a", 70000, "b", M{"$gt", -5}}))},
		{env(1, "t.db", in, cmd("Find", M{"a", "x"})), env(1, "t.db", in, cmd("Find", M{"a", strings.Repeat("long ", 100)}))},
		{env(1, "t.db", in, cmd("Find", M{"a", M{"$in", A{1, "x", 2.5}}})), env(7, "t.db", in, cmd("Find", M{"a", M{"$in", A{3, "yy", 0.5}}}))},
		{env(1, "t.db", in, cmd("Insert", M{"a", 1, "b", "x"})), env(2, "t.db", in, cmd("Insert", M{"a", 2, "b", "y"}))},
		{env(1, "t.db", cmd("Tx", A{in, cmd("Insert", M{"a", 1})}, A{in, cmd("Find", M{"a", 2}), cmd("Set", M{"b", 3})})),
			env(5, "t.db", cmd("Tx", A{in, cmd("Insert", M{"a", 4})}, A{in, cmd("Find", M{"a", 5}), cmd("Set", M{"b", 6})}))},
	}
	var b Builder
	var d wire.Decoder
	for i, p := range pairs {
		viaCache(&b, &d, p[0])
		got, hit := viaCache(&b, &d, p[1])
		if !hit {
			t.Errorf("pair %d: the second request of the same shape missed the cache", i)
		}
		if want := fresh(p[1]); got != want {
			t.Errorf("pair %d: cached\n%s\nwant\n%s", i, got, want)
		}
		// Found through the shared cache too, by a Builder that never saw it.
		var other Builder
		if got, hit := viaCache(&other, &d, p[1]); !hit || got != fresh(p[1]) {
			t.Errorf("pair %d from another Builder: hit=%v\n%s", i, hit, got)
		}
	}
}

// Handles on many threads share the cache; run with -race.
func TestShapeCacheConcurrentBuilders(t *testing.T) {
	variants := shapeVariants()
	variants["reference"] = referenceBytes(t)
	var names []string
	want := map[string]string{}
	for name, raw := range variants {
		names = append(names, name)
		want[name] = fresh(raw)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			var b Builder
			var d wire.Decoder
			for i := 0; i < 40*len(names); i++ {
				name := names[(i*(g+3))%len(names)]
				if got, _ := viaCache(&b, &d, variants[name]); got != want[name] {
					errs <- fmt.Sprintf("goroutine %d, %s:\n%s\nwant\n%s", g, name, got, want[name])
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
