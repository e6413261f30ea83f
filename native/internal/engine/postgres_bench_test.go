package engine

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// The rows workload's query (stress/workloads/rows.json: 10 rows of 6
// columns by an indexed column) on both backends, and the same SQL on a
// bare pgconn connection prepared once: the floor under the DAL on
// PostgreSQL. Run with the test server:
//
//	scripts/lib/pg-cluster.sh run --no-replica -- sh -c 'cd native && go test -run ^$ -bench PostgresRows ./internal/engine'

const rowsSchema = `CREATE TABLE items (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, name TEXT NOT NULL, qty INTEGER NOT NULL, price REAL NOT NULL, note TEXT);
CREATE INDEX items_k ON items (k)`

func seedRows(b *testing.B, h *Handle, db string) {
	for batch := 0; batch < 10; batch++ {
		var rows []any
		for x := batch*100 + 1; x <= batch*100+100; x++ {
			rows = append(rows, obj{{"id", x}, {"k", (x - 1) / 10}, {"name", "item-" + strconv.Itoa(x)}, {"qty", x * 7 % 100}, {"price", float64(x*5) / 4}, {"note", nil}})
		}
		r, err := h.Query(request(1, db, in("items"), with("Insert", rows...)))
		if err != nil {
			b.Fatal(err)
		}
		r.Release()
	}
}

func benchRows(b *testing.B, h *Handle, db string) {
	reqs := make([][]byte, 100)
	for key := range reqs {
		reqs[key] = request(uint64(key), db, in("items"), with("Find", obj{{"k", key}}), with("Sort", obj{{"id", 1}}))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := h.Query(reqs[i%100])
		if err != nil {
			b.Fatal(err)
		}
		r.Release()
	}
}

func BenchmarkPostgresRows(b *testing.B) {
	url := pgEnvB(b)
	b.Run("dal-sqlite", func(b *testing.B) {
		dir := b.TempDir()
		id, err := Open(dir, "")
		if err != nil {
			b.Fatal(err)
		}
		defer Close(id)
		h, _ := Lookup(id)
		createTable(b, dir, "rows.db", rowsSchema)
		seedRows(b, h, "rows.db")
		benchRows(b, h, "rows.db")
	})
	db := "bench_rows_" + strconv.Itoa(int(schemaSeq.Add(1)))
	id, err := Open(url, "")
	if err != nil {
		b.Fatal(err)
	}
	defer Close(id)
	h, _ := Lookup(id)
	if err := h.Exec([]byte(db), []byte(rowsSchema)); err != nil {
		b.Fatal(err)
	}
	seedRows(b, h, db)
	b.Run("dal-postgres", func(b *testing.B) { benchRows(b, h, db) })
	b.Run("pgconn-floor", func(b *testing.B) {
		ctx := context.Background()
		c, err := pgconn.Connect(ctx, url)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "SET search_path TO "+db).ReadAll(); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Prepare(ctx, "floor", `SELECT * FROM "items" WHERE "k" = $1 ORDER BY "id" ASC NULLS FIRST`, nil); err != nil {
			b.Fatal(err)
		}
		formats := []int16{1, 1, 0, 1, 1, 0} // as the DAL reads them (rows.go)
		keys := make([][]byte, 100)
		for k := range keys {
			keys[k] = []byte(strconv.Itoa(k))
		}
		params := make([][]byte, 1)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			params[0] = keys[i%100]
			rr := c.ExecPrepared(ctx, "floor", params, nil, formats)
			n := 0
			for rr.NextRow() {
				n += len(rr.Values())
			}
			if _, err := rr.Close(); err != nil || n != 60 {
				b.Fatalf("%v, %d values", err, n)
			}
		}
	})
}

func pgEnvB(b *testing.B) string {
	if u := os.Getenv("DALKIT_PG_URL"); u != "" {
		return u
	}
	b.Skip("DALKIT_PG_URL is not set; run under scripts/lib/pg-cluster.sh (see the comment above)")
	return ""
}
