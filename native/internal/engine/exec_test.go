package engine

import (
	"strings"
	"sync"
	"testing"
)

// execCode runs Handle.Exec and returns its dal.h code (OK on success).
func execCode(t *testing.T, h *Handle, db, sql string) (Code, string) {
	t.Helper()
	err := h.Exec([]byte(db), []byte(sql))
	if err == nil {
		return OK, ""
	}
	var e *Error
	if !asError(err, &e) {
		t.Fatalf("Exec returned a %T, not an *Error: %v", err, err)
	}
	return e.Code, e.Msg
}

func TestExecCreatesSchemaTheProtocolUses(t *testing.T) {
	h, _ := openTemp(t, "")
	if code, msg := execCode(t, h, "app.db", "CREATE TABLE t(id INTEGER PRIMARY KEY, v INT); INSERT INTO t(v) VALUES (10), (20)"); code != OK {
		t.Fatalf("Exec: %d %s", code, msg)
	}
	got := rows(t, result(t, h, request(1, "app.db", in("t"), with("Fields", "v"))))
	if len(got) != 2 || got[0][0] != int64(10) || got[1][0] != int64(20) {
		t.Fatalf("rows %v", got)
	}
}

func TestExecErrors(t *testing.T) {
	h, _ := openTemp(t, "")
	cases := []struct {
		db, sql string
		code    Code
		msg     string
	}{
		{"app.db", "CREATE TABLE (x)", EDatabase, "syntax error"},
		{"app.db", "INSERT INTO nope VALUES (1)", EDatabase, "no such table: nope"},
		{"../x", "CREATE TABLE t(x)", ERequest, "invalid db name"},
		{"app.db", "CREATE TABLE t(x);\x00DROP TABLE t", ERequest, "NUL byte at offset 18"},
		{"app.db", "BEGIN; CREATE TABLE open_tx(x);", ERequest, "transaction open"},
	}
	for _, c := range cases {
		code, msg := execCode(t, h, c.db, c.sql)
		if code != c.code || !strings.Contains(msg, c.msg) {
			t.Errorf("Exec(%q, %q) = %d %q, want %d containing %q", c.db, c.sql, code, msg, c.code, c.msg)
		}
	}
	// The open transaction was rolled back: its table does not exist, and the
	// writer connection takes new work.
	if code, msg := execCode(t, h, "app.db", "CREATE TABLE open_tx(x)"); code != OK {
		t.Fatalf("after rollback: %d %s", code, msg)
	}
}

func TestExecOnClosedHandle(t *testing.T) {
	id, err := Open(t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	h, _ := Lookup(id)
	Close(id)
	if code, _ := execCode(t, h, "app.db", "CREATE TABLE t(x)"); code != EHandle {
		t.Fatalf("code %d, want EHandle", code)
	}
}

// Exec and protocol writes share the writer connection's lock.
func TestExecConcurrentWithQueries(t *testing.T) {
	h, _ := openTemp(t, "")
	if code, msg := execCode(t, h, "app.db", "CREATE TABLE t(x)"); code != OK {
		t.Fatal(code, msg)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if g%2 == 0 {
					if code, msg := execCode(t, h, "app.db", "INSERT INTO t VALUES (1)"); code != OK {
						t.Error(code, msg)
					}
				} else {
					r, err := h.Query(request(uint64(i), "app.db", in("t"), with("Insert", obj{{"x", 2}})))
					if err != nil {
						t.Error(err)
						continue
					}
					r.Release()
				}
			}
		}(g)
	}
	wg.Wait()
	got := rows(t, result(t, h, request(1, "app.db", in("t"), with("Fields", "count(*)"))))
	if got[0][0] != int64(200) {
		t.Fatalf("count %v, want 200", got[0][0])
	}
}
