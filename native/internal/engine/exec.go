package engine

import (
	"bytes"
	"errors"
	"fmt"

	"dalkit/native/internal/sqlite"
)

// Exec runs administrative SQL text (schemas, migrations) on the writer
// connection of database db: the admin entry point behind dal_exec. The
// query protocol has no DDL on purpose, so this is the only way a caller
// creates tables through the DAL; it never sees user input (dal.h says so).
//
// Several statements are allowed and run in order with sqlite3_exec
// semantics: each one commits on its own unless the text opens a
// transaction, result rows are discarded, and the first failure stops the
// rest. Statements before the failing one stay done. A transaction the text
// opened and left open (a failure after BEGIN, or a missing COMMIT) is
// rolled back, so the writer connection never carries it into the next
// request.
//
// Failures are call failures: an invalid db name or a NUL byte in sql is
// ERequest, sql longer than max_request_bytes ETooLarge, SQLite's own
// error EDatabase with SQLite's message, and running past max_query_ms
// ELimit (the statement that was interrupted is rolled back).
func (h *Handle) Exec(db, sql []byte) error {
	h.life.RLock()
	defer h.life.RUnlock()
	if h.closed {
		return errorf(EHandle, "handle is closed")
	}
	if len(sql) > h.opts.MaxRequestBytes {
		return errorf(ETooLarge, fmt.Sprintf("SQL text of %d bytes exceeds max_request_bytes=%d", len(sql), h.opts.MaxRequestBytes))
	}
	// sqlite3_exec reads up to the first NUL: anything after one would be
	// dropped without a word, so a NUL inside the given length is refused.
	if i := bytes.IndexByte(sql, 0); i >= 0 {
		return errorf(ERequest, fmt.Sprintf("SQL text contains a NUL byte at offset %d of %d; pass its exact length without a terminator", i, len(sql)))
	}
	return h.be.Exec(db, sql)
}

// Exec runs dal_exec's SQL text on the writer connection of database db.
func (b *sqliteBackend) Exec(db, sql []byte) error {
	d, err := b.dbs.acquire(db)
	if err != nil {
		return err
	}
	defer b.dbs.release(d)
	c, err := d.lockWriter()
	if err != nil {
		return err
	}
	defer d.unlockWriter()
	c.db.ArmTimeLimit()
	err = c.db.Exec(string(sql))
	if err == nil && !c.db.InTransaction() {
		return nil
	}
	if c.db.InTransaction() {
		// Ends the text's open transaction; its own failure cannot be more
		// useful to the caller than the error that led here.
		_ = c.db.ExecTx(sqlite.Rollback)
		if err == nil {
			return errorf(ERequest, "SQL text left a transaction open (BEGIN without COMMIT); it was rolled back")
		}
	}
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code == sqlite.Interrupt && c.db.TimeLimitExpired() {
		return errorf(ELimit, fmt.Sprintf("SQL text took longer than max_query_ms=%d and was interrupted; the statement it was running was rolled back", b.opts.MaxQueryMs))
	}
	return errorf(EDatabase, fmt.Sprintf("SQL error in database %q: %v", db, err))
}
