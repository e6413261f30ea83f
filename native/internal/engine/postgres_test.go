package engine

import (
	"testing"
)

func TestPostgresRoundTrip(t *testing.T) {
	h := openPG(t, pgURL(t), "")
	db := freshSchema(t)
	execPG(t, h, db, `CREATE TABLE users (id bigserial PRIMARY KEY, name text, age int, score float8, pic bytea)`)
	m := result(t, h, request(1, db, in("users"), with("Insert",
		obj{{"name", "ann"}, {"age", 31}, {"score", 1.5}, {"pic", []byte{0, 1, 2}}},
		obj{{"name", "bob"}, {"age", 17}, {"score", 2.5}, {"pic", nil}},
	)))
	t.Logf("%v", m)
	got := rows(t, result(t, h, request(2, db, in("users"), with("Sort", obj{{"id", 1}}))))
	t.Logf("%v", got)
	m = result(t, h, request(3, db, in("nosuch")))
	t.Logf("%v", m)
}
