package engine

import (
	"fmt"
	"strings"
	"testing"
)

// An unknown column must be an error that changes nothing. With SQLite's
// double-quoted-string fallback on, `"typo"` silently became the string
// literal 'typo': a Delete with Find({typo: {$gt: 0}}) emptied the table
// (the text 'typo' is greater than 0), and Fields(["nosuch"]) returned the
// text "nosuch" in every row.
func TestUnknownColumnIsAnErrorAndChangesNothing(t *testing.T) {
	h, dir := openTemp(t, "")
	createTable(t, dir, "u.db", `CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, n INTEGER);
		CREATE TABLE o (id INTEGER PRIMARY KEY, tid INTEGER);
		INSERT INTO t (name, n) VALUES ('a', 1), ('b', 2), ('c', 3), ('d', 4), ('e', 5);
		INSERT INTO o (tid) VALUES (1), (2)`)
	snapshot := func() string {
		var b strings.Builder
		for _, r := range rows(t, result(t, h, request(1, "u.db", in("t"), with("Sort", obj{{"id", 1}})))) {
			fmt.Fprintf(&b, "%v", r)
			b.WriteByte('\n')
		}
		return b.String()
	}
	before := snapshot()

	for _, col := range unknownColumns {
		for name, cmds := range unknownColumnCases(col) {
			m := result(t, h, request(7, "u.db", cmds...))
			e, _ := m["e"].(string)
			if !strings.Contains(e, "no such column") {
				t.Errorf("%s with unknown column %q: want SQLite's \"no such column\" error, got %v", name, col, m)
			}
			if ra, ok := m["ra"]; ok && ra != int64(0) {
				t.Errorf("%s with unknown column %q: %v rows affected", name, col, ra)
			}
			if _, ok := m["r"]; ok {
				t.Errorf("%s with unknown column %q returned rows: %v", name, col, m["r"])
			}
		}
	}
	if after := snapshot(); after != before {
		t.Fatalf("the table changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// Column names no table t (id, name, n) or o (id, tid) has, some of them
// words SQL could read as something else.
var unknownColumns = []string{"typo", "ä", "NULL", "_", "CURRENT_TIMESTAMP"}

// unknownColumnCases: every place a request names a column, naming col
// (on tables t and o), by method.
func unknownColumnCases(col string) map[string][]cmd {
	return map[string][]cmd{
		"Delete": {in("t"), with("Find", obj{{col, obj{{"$gt", 0}}}}), with("Delete")},
		"Set":    {in("t"), with("Find", obj{{col, obj{{"$gt", 0}}}}), with("Set", obj{{"n", 99}})},
		"SetCol": {in("t"), with("Set", obj{{col, 99}})},
		"Find":   {in("t"), with("Find", obj{{col, obj{{"$gt", 0}}}})},
		"Fields": {in("t"), with("Fields", col)},
		"Sort":   {in("t"), with("Sort", obj{{col, 1}})},
		"Group":  {in("t"), with("Fields", "count(*)"), with("Group", col)},
		"Join":   {in("t"), with("Join", obj{{"$for", "o"}, {"$do", obj{{"o." + col, "t.id"}}}})},
	}
}
