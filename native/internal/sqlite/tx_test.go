package sqlite

import "testing"

// ExecTx's statements take no parameters: ones set for the statement after
// a BEGIN are still there when that statement is stepped.
func TestExecTxLeavesParamsForTheNextStatement(t *testing.T) {
	c := openMemory(t)
	mustExec(t, c, "CREATE TABLE t (x INTEGER NOT NULL)")
	ins, rc, msg := c.Prepare([]byte("INSERT INTO t (x) VALUES (?)"))
	if ins == nil {
		t.Fatalf("prepare: rc %d: %s", rc, msg)
	}
	defer ins.Finalize()

	p, ok := c.Params(1)
	if !ok {
		t.Fatal("Params(1) could not grow")
	}
	p.Int(0, 42)
	if err := c.ExecTx(Begin); err != nil {
		t.Fatal(err)
	}
	if changes, _, rc := ins.StepWrite(false, true); rc != Done || changes != 1 {
		t.Fatalf("insert after BEGIN: rc %d, %d changes (its parameter was taken by BEGIN?)", rc, changes)
	}
	if err := c.ExecTx(Commit); err != nil {
		t.Fatal(err)
	}

	sel, rc, msg := c.Prepare([]byte("SELECT x FROM t"))
	if sel == nil {
		t.Fatalf("prepare: rc %d: %s", rc, msg)
	}
	defer sel.Finalize()
	if rc := sel.Step(); rc != Row {
		t.Fatalf("select: rc %d, want a row", rc)
	}
	if got := sel.ColumnInt64(0); got != 42 {
		t.Fatalf("x = %d, want 42", got)
	}
}
