package engine

import (
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

// The PostgreSQL tests run against a real server that
// scripts/lib/pg-cluster.sh starts (ctest go_test_postgres):
//
//	scripts/lib/pg-cluster.sh run -- sh -c 'cd native && go test -run Postgres ./internal/engine'

// pgEnv returns the environment variable name of the test cluster, failing
// when the run requires a server (ctest sets DALKIT_PG_REQUIRED=1) and
// skipping a developer's plain go test otherwise.
func pgEnv(t *testing.T, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v != "" {
		return v
	}
	msg := name + " is not set: this test needs the throwaway PostgreSQL server of " +
		"scripts/lib/pg-cluster.sh; run: scripts/lib/pg-cluster.sh run -- sh -c 'cd native && go test -run Postgres ./internal/engine' (ctest: go_test_postgres)"
	if os.Getenv("DALKIT_PG_REQUIRED") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func pgURL(t *testing.T) string { return pgEnv(t, "DALKIT_PG_URL") }

// openPG opens a handle on url with options.
func openPG(t *testing.T, url, options string) *Handle {
	t.Helper()
	id, err := Open(url, options)
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	t.Cleanup(func() { Close(id) })
	h, _ := Lookup(id)
	return h
}

var schemaSeq atomic.Int64

// freshSchema is a db name no other test (or earlier run against the same
// server) uses.
func freshSchema(t *testing.T) string {
	name := strings.ToLower(strings.NewReplacer("/", "_", "-", "_").Replace(t.Name()))
	if len(name) > 40 {
		name = name[:40]
	}
	return fmt.Sprintf("%s_%d_%d", name, os.Getpid()%100000, schemaSeq.Add(1))
}

// execPG runs schema SQL through dal_exec's path, in the schema of db.
func execPG(t *testing.T, h *Handle, db, sql string) {
	t.Helper()
	if err := h.Exec([]byte(db), []byte(sql)); err != nil {
		t.Fatalf("exec in %s: %v", db, err)
	}
}
