package query

import "dalkit/native/internal/wire"

// insertStmt emits
//
//	INSERT INTO "t" ("a", "b") VALUES (?, ?), (?, ?)[ ON CONFLICT ("a") DO UPDATE SET "b" = excluded."b" | DO NOTHING]
//
// Columns come from the first row in its key order; later rows must have the
// same set of keys (in any order) and their values are bound in that order.
func (b *Builder) insertStmt() error {
	if err := b.nargs(mInsert, 1, many); err != nil {
		return err
	}
	rows := b.p.args[mInsert].Items
	first := rows[0]
	if first.Kind != wire.Map || first.Len() == 0 {
		return errorf("Insert: row 1 must be a non-empty map {column: value}, got %s", describe(first))
	}
	if rows, cols := len(rows), first.Len(); rows*cols > MaxParams {
		return errorf("Insert: %d rows of %d columns need %d parameters; a statement may bind at most %d values, split the insert", rows, cols, rows*cols, MaxParams)
	}
	b.w("INSERT INTO ")
	if err := b.table(); err != nil {
		return err
	}
	b.w(" (")
	if err := b.columnList(first, "Insert"); err != nil {
		return err
	}
	b.w(") VALUES ")
	for r, row := range rows {
		if r > 0 {
			b.w(", ")
		}
		if err := b.row(first, row, r); err != nil {
			return err
		}
	}
	return b.upsert()
}

// columnList emits the keys of m as unqualified, distinct columns.
func (b *Builder) columnList(m wire.Value, method string) error {
	for i := 0; i < m.Len(); i++ {
		if i > 0 {
			b.w(", ")
		}
		k := m.Key(i)
		if k.Kind != wire.Str {
			return errorf("%s: column names must be strings, got %s", method, k.Kind)
		}
		for j := 0; j < i; j++ {
			if string(m.Key(j).Bytes) == string(k.Bytes) {
				return errorf("%s: duplicate column %s", method, q(k.Bytes))
			}
		}
		if err := b.ident(k.Bytes, 1); err != nil {
			return prefix(err, "%s: ", method)
		}
	}
	return nil
}

// row emits `(?, ?)` for row r, binding values in the column order of first.
func (b *Builder) row(first, row wire.Value, r int) error {
	if row.Kind != wire.Map {
		return errorf("Insert: row %d must be a map {column: value}, got %s", r+1, row.Kind)
	}
	if row.Len() != first.Len() {
		return errorf("Insert: row %d has %d columns, row 1 has %d; all rows need the same keys", r+1, row.Len(), first.Len())
	}
	b.w("(")
	for c := 0; c < first.Len(); c++ {
		if c > 0 {
			b.w(", ")
		}
		col := first.Key(c).Bytes
		v, ok := lookup(row, c, col)
		if !ok {
			return errorf("Insert: row %d has no column %s; all rows need the same keys as row 1", r+1, q(col))
		}
		if !v.IsScalar() {
			return errorf("Insert: row %d, column %s: value must be a scalar, got %s", r+1, q(col), v.Kind)
		}
		if err := b.bind(v); err != nil {
			return prefix(err, "Insert: row %d, column %s: ", r+1, q(col))
		}
	}
	b.w(")")
	return nil
}

// lookup finds col in row, trying position c first: rows built by the same
// code almost always list keys in the same order.
func lookup(row wire.Value, c int, col []byte) (wire.Value, bool) {
	if k := row.Key(c); k.Kind == wire.Str && string(k.Bytes) == string(col) {
		return row.Val(c), true
	}
	found := -1
	for i := 0; i < row.Len(); i++ {
		if k := row.Key(i); k.Kind == wire.Str && string(k.Bytes) == string(col) {
			if found >= 0 {
				return wire.Value{}, false // duplicate key: the row is not a plain record
			}
			found = i
		}
	}
	if found < 0 {
		return wire.Value{}, false
	}
	return row.Val(found), true
}

const upsertRule = "OnConflict needs exactly one of DoUpdate or DoNothing"

// upsert emits the ON CONFLICT clause.
func (b *Builder) upsert() error {
	has := b.p.has
	switch {
	case has.has(mDoUpdate) && has.has(mDoNothing):
		return errorf("DoUpdate and DoNothing cannot be combined; %s", upsertRule)
	case (has.has(mDoUpdate) || has.has(mDoNothing)) && !has.has(mOnConflict):
		return errorf("%s needs OnConflict", pick(has.has(mDoUpdate), "DoUpdate", "DoNothing"))
	case !has.has(mOnConflict):
		return nil
	case !has.has(mDoUpdate) && !has.has(mDoNothing):
		return errorf(upsertRule)
	}
	if len(b.p.args[mOnConflict].Items) == 0 && has.has(mDoUpdate) && b.dialect == PostgreSQL {
		return errorf("OnConflict: DoUpdate needs conflict columns on PostgreSQL (ON CONFLICT DO UPDATE requires a target there); name the unique columns, or use DoNothing")
	}
	b.w(" ON CONFLICT")
	// An empty target is valid SQLite (any uniqueness conflict, 3.35+).
	if target := b.p.args[mOnConflict].Items; len(target) > 0 {
		b.w(" (")
		if err := b.names(mOnConflict, target); err != nil {
			return err
		}
		b.w(")")
	}
	if has.has(mDoNothing) {
		if err := b.nargs(mDoNothing, 0, 0); err != nil {
			return err
		}
		b.w(" DO NOTHING")
		return nil
	}
	if err := b.nargs(mDoUpdate, 1, many); err != nil {
		return err
	}
	b.w(" DO UPDATE SET ")
	for i, c := range b.p.args[mDoUpdate].Items {
		if i > 0 {
			b.w(", ")
		}
		if c.Kind != wire.Str {
			return errorf("DoUpdate: argument %d must be a string (a column), got %s", i+1, c.Kind)
		}
		if err := b.ident(c.Bytes, 1); err != nil {
			return prefix(err, "DoUpdate: ")
		}
		// excluded is SQLite's name for the row that failed to insert.
		b.w(" = excluded.")
		b.ident(c.Bytes, 1)
	}
	return nil
}

// names emits a comma-separated list of unqualified column names.
func (b *Builder) names(m method, list []wire.Value) error {
	for i, c := range list {
		if i > 0 {
			b.w(", ")
		}
		if c.Kind != wire.Str {
			return errorf("%s: argument %d must be a string (a column), got %s", methodNames[m], i+1, c.Kind)
		}
		if err := b.ident(c.Bytes, 1); err != nil {
			return prefix(err, "%s: ", methodNames[m])
		}
	}
	return nil
}

// updateStmt emits `UPDATE "t" SET "a" = ?, "b" = ? WHERE f`.
func (b *Builder) updateStmt() error {
	if err := b.nargs(mSet, 1, 1); err != nil {
		return err
	}
	set := b.p.args[mSet].Items[0]
	if set.Kind != wire.Map || set.Len() == 0 {
		return errorf("Set: argument 1 must be a non-empty map {column: value}, got %s", describe(set))
	}
	b.w("UPDATE ")
	if err := b.table(); err != nil {
		return err
	}
	b.w(" SET ")
	for i := 0; i < set.Len(); i++ {
		if i > 0 {
			b.w(", ")
		}
		k, v := set.Key(i), set.Val(i)
		if k.Kind != wire.Str {
			return errorf("Set: column names must be strings, got %s", k.Kind)
		}
		for j := 0; j < i; j++ {
			if string(set.Key(j).Bytes) == string(k.Bytes) {
				return errorf("Set: duplicate column %s", q(k.Bytes))
			}
		}
		if err := b.ident(k.Bytes, 1); err != nil {
			return prefix(err, "Set: ")
		}
		if !v.IsScalar() {
			return errorf("Set: column %s: value must be a scalar, got %s", q(k.Bytes), v.Kind)
		}
		b.w(" = ")
		if err := b.bind(v); err != nil {
			return prefix(err, "Set: column %s: ", q(k.Bytes))
		}
	}
	return b.where()
}

// deleteStmt emits `DELETE FROM "t" WHERE f`.
func (b *Builder) deleteStmt() error {
	if err := b.nargs(mDelete, 0, 0); err != nil {
		return err
	}
	b.w("DELETE FROM ")
	if err := b.table(); err != nil {
		return err
	}
	return b.where()
}

func pick(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}
