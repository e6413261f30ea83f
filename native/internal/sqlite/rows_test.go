package sqlite

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/tinylib/msgp/msgp"
)

// goRows is the Go encoder that rows.c replaced (a cgo call per column per
// row, values appended with msgp): the oracle the C encoder must match byte
// for byte, including where it stops for the limit.
func goRows(s *Stmt, out []byte, start, limit int) ([]byte, uint32, int) {
	ncol := s.ColumnCount()
	out = msgp.AppendArrayHeader(out, uint32(ncol))
	for i := 0; i < ncol; i++ {
		out = msgp.AppendStringFromBytes(out, s.ColumnName(i))
	}
	out = msgp.AppendString(out, "r")
	countAt := len(out)
	out = append(out, 0xdd, 0, 0, 0, 0)
	var rows uint32
	for {
		rc := s.Step()
		if rc == Done {
			break
		}
		if rc != Row {
			return out, rows, rc
		}
		rows++
		out = msgp.AppendArrayHeader(out, uint32(ncol))
		for i := 0; i < ncol; i++ {
			switch s.ColumnType(i) {
			case TypeInteger:
				out = msgp.AppendInt64(out, s.ColumnInt64(i))
			case TypeFloat:
				out = msgp.AppendFloat64(out, s.ColumnFloat(i))
			case TypeText:
				out = msgp.AppendStringFromBytes(out, s.ColumnText(i))
			case TypeBlob:
				out = msgp.AppendBytes(out, s.ColumnBlob(i))
			default:
				out = msgp.AppendNil(out)
			}
		}
		if len(out)-start > limit {
			return out, rows, RowsOverLimit
		}
	}
	out[countAt+1], out[countAt+2], out[countAt+3], out[countAt+4] = byte(rows>>24), byte(rows>>16), byte(rows>>8), byte(rows)
	return out, rows, Done
}

func openMemory(t *testing.T) *Conn {
	t.Helper()
	c, err := Open(":memory:", OpenReadWrite|OpenCreate|OpenNoMutex, 1000)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func mustExec(t *testing.T, c *Conn, sql string) {
	t.Helper()
	if err := c.Exec(sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// edgeValues returns one value per encoding boundary of every storage class.
func edgeValues() []any {
	var vs []any
	for _, i := range []int64{0, 1, 127, 128, 255, 256, 32767, 32768, 65535, 65536, math.MaxInt32, math.MaxInt32 + 1,
		math.MaxUint32, math.MaxUint32 + 1, math.MaxInt64, -1, -31, -32, -33, -127, -128, -129, -32767, -32768, -32769,
		math.MinInt32 + 1, math.MinInt32, math.MinInt32 - 1, math.MinInt64 + 1, math.MinInt64} {
		vs = append(vs, i)
	}
	for _, f := range []float64{0, math.Copysign(0, -1), 1.5, -2.25, math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1), 1e300} {
		vs = append(vs, f)
	}
	for _, n := range []int{0, 1, 31, 32, 255, 256, 65535, 65536, 70000} {
		vs = append(vs, strings.Repeat("é", n/2)+strings.Repeat("x", n%2)) // n bytes of UTF-8
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i * 7)
		}
		vs = append(vs, b)
	}
	return append(vs, nil)
}

// valueTable creates t(id, a, b, c, d, e) holding every edge value in every
// column, rotated so each row mixes storage classes, and returns its rows.
func valueTable(t *testing.T, c *Conn) int {
	t.Helper()
	mustExec(t, c, `CREATE TABLE t(id INTEGER PRIMARY KEY, a, b, c, d, e)`)
	ins, rc, _ := c.Prepare([]byte(`INSERT INTO t(a, b, c, d, e) VALUES (?, ?, ?, ?, ?)`))
	if ins == nil {
		t.Fatalf("prepare: %d %s", rc, c.ErrMsg())
	}
	defer ins.Finalize()
	vs := edgeValues()
	for r := range vs {
		p, ok := c.Params(5)
		if !ok {
			t.Fatal("Params: out of memory")
		}
		var pin runtime.Pinner // the texts and blobs are Go memory (sqlite.Params)
		for col := 0; col < 5; col++ {
			switch v := vs[(r+col*7)%len(vs)].(type) {
			case int64:
				p.Int(col, v)
			case float64:
				p.Float(col, v)
			case string:
				b := []byte(v)
				if len(b) > 0 {
					pin.Pin(&b[0])
				}
				p.Text(col, b)
			case []byte:
				if len(v) > 0 {
					pin.Pin(&v[0])
				}
				p.Blob(col, v)
			default:
				p.Null(col)
			}
		}
		_, _, rc := ins.StepWrite(false, true)
		pin.Unpin()
		if rc != Done {
			t.Fatalf("insert: %d %s", rc, c.ErrMsg())
		}
	}
	return len(vs)
}

// compare encodes sql's result with both encoders from the same prefix and
// capacity and requires the same bytes, row count and result.
func compare(t *testing.T, c *Conn, sql string, prefix []byte, capacity, limit int) {
	t.Helper()
	s, rc, _ := c.Prepare([]byte(sql))
	if s == nil {
		t.Fatalf("prepare %s: %d %s", sql, rc, c.ErrMsg())
	}
	defer s.Finalize()
	want, wantRows, wantRC := goRows(s, append([]byte(nil), prefix...), 0, limit)
	s.Reset()
	buf := append(make([]byte, 0, capacity), prefix...)
	got, gotRows, gotRC := s.AppendRows(buf, 0, limit)
	s.Reset()
	if gotRC != wantRC || gotRows != wantRows {
		t.Fatalf("%s (cap %d, limit %d): C encoder returned rc %d after %d rows, Go encoder rc %d after %d rows", sql, capacity, limit, gotRC, gotRows, wantRC, wantRows)
	}
	if !bytes.Equal(got, want) {
		at := 0
		for at < len(got) && at < len(want) && got[at] == want[at] {
			at++
		}
		t.Fatalf("%s (cap %d, limit %d): %d bytes from C, %d from Go, first difference at byte %d", sql, capacity, limit, len(got), len(want), at)
	}
}

func TestAppendRowsMatchesGoEncoder(t *testing.T) {
	c := openMemory(t)
	n := valueTable(t, c)
	queries := []string{
		`SELECT * FROM t ORDER BY id`,
		`SELECT a AS "a_column_alias_longer_than_thirty_one_bytes", typeof(a) FROM t`,
		`SELECT * FROM t WHERE id < 0`, // no rows: names and an empty array
		// 20 columns: an array16 header for the names and for every row.
		`SELECT id, a, b, c, d, e, a, b, c, d, e, a, b, c, d, e, 1, -1, 2.5, NULL FROM t`,
		`SELECT '' AS "", x'' AS e`, // empty text and blob, an empty column name
		`WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 70000) SELECT i, -i * 100003 FROM k`,
	}
	unlimited := math.MaxInt
	for _, q := range queries {
		for _, capacity := range []int{0, 1, 64, 1 << 20} { // 0 and 1 force the grow-and-resume path
			compare(t, c, q, nil, capacity, unlimited)
			compare(t, c, q, []byte{0x83, 0xa1, 'i', 0x07, 0xa1, 'c'}, capacity, unlimited)
		}
	}
	if n < 50 {
		t.Fatalf("only %d edge values", n)
	}
}

func TestAppendRowsStopsAtTheLimitLikeGoEncoder(t *testing.T) {
	c := openMemory(t)
	valueTable(t, c)
	for _, limit := range []int{0, 1, 50, 1000, 66000, 140000, 500000} {
		compare(t, c, `SELECT * FROM t ORDER BY id`, []byte("prefix"), 0, limit)
	}
	// The limit counts from start, not from the beginning of the buffer.
	s, _, _ := c.Prepare([]byte(`SELECT 1`))
	defer s.Finalize()
	out, rows, rc := s.AppendRows(make([]byte, 1000), 1000, 12)
	s.Reset()
	if rc != Done || rows != 1 || len(out) != 1000+12 {
		t.Fatalf("SELECT 1 after a 1000-byte prefix, limit 12: rc %d, %d rows, %d bytes", rc, rows, len(out))
	}
	_, _, rc = s.AppendRows(make([]byte, 1000), 1000, 11)
	if rc != RowsOverLimit {
		t.Fatalf("SELECT 1 needs 12 bytes, limit 11: rc %d, want RowsOverLimit", rc)
	}
}

func TestAppendRowsReportsStepErrors(t *testing.T) {
	c := openMemory(t)
	// abs(min int64) fails on the second row: the first row is written.
	sql := `SELECT abs(v) FROM (SELECT 1 AS v UNION ALL SELECT -9223372036854775808)`
	compare(t, c, sql, nil, 0, math.MaxInt)
	s, _, _ := c.Prepare([]byte(sql))
	defer s.Finalize()
	_, rows, rc := s.AppendRows(nil, 0, math.MaxInt)
	if rc == Done || rc == RowsOverLimit || rows != 1 {
		t.Fatalf("integer overflow in the second row: rc %d after %d rows, want SQLite's error after 1", rc, rows)
	}
	if msg := string(c.ErrMsg()); !strings.Contains(msg, "overflow") {
		t.Fatalf("error message %q", msg)
	}
}

func BenchmarkAppendRows(b *testing.B) {
	for _, enc := range []struct {
		name string
		f    func(*Stmt, []byte, int, int) ([]byte, uint32, int)
	}{{"C", (*Stmt).AppendRows}, {"Go", goRows}} {
		b.Run(enc.name, func(b *testing.B) {
			c, _ := Open(":memory:", OpenReadWrite|OpenCreate|OpenNoMutex, 1000)
			defer c.Close()
			_ = c.Exec(`CREATE TABLE t(id INTEGER PRIMARY KEY, n INTEGER, s TEXT, f REAL, z, k INTEGER)`)
			for i := 0; i < 10; i++ {
				_ = c.Exec(fmt.Sprintf(`INSERT INTO t(n, s, f, z, k) VALUES (%d, 'name %d', %d.5, NULL, 7)`, i*1000, i, i))
			}
			s, _, _ := c.Prepare([]byte(`SELECT * FROM t ORDER BY id`))
			defer s.Finalize()
			buf := make([]byte, 0, 4096)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				enc.f(s, buf, 0, math.MaxInt)
				s.Reset()
			}
		})
	}
}
