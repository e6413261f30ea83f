package query

import (
	"bytes"

	"dalkit/native/internal/wire"
)

// selectStmt emits
//
//	SELECT fields FROM "t" AS "a" <joins> WHERE f GROUP BY "g", ... ORDER BY "k" ASC, ... LIMIT ? OFFSET ?
//
// Clauses appear in SQL order regardless of method order, so '?' and Args
// line up.
func (b *Builder) selectStmt() error {
	b.w("SELECT ")
	if err := b.fields(); err != nil {
		return err
	}
	b.w(" FROM ")
	if err := b.table(); err != nil {
		return err
	}
	if err := b.joins(); err != nil {
		return err
	}
	if err := b.where(); err != nil {
		return err
	}
	if err := b.group(); err != nil {
		return err
	}
	if err := b.sort(); err != nil {
		return err
	}
	return b.limit()
}

// table emits In's `"table"` or `"table" AS "alias"`.
func (b *Builder) table() error {
	if err := b.nargs(mIn, 1, 2); err != nil {
		return err
	}
	a := b.p.args[mIn].Items
	for i, x := range a {
		if x.Kind != wire.Str {
			return errorf("In: argument %d must be a string (%s), got %s", i+1, [2]string{"table", "alias"}[i], x.Kind)
		}
	}
	if err := b.tableName(a[0].Bytes); err != nil {
		return prefix(err, "In: ")
	}
	if len(a) == 2 {
		b.w(" AS ")
		if err := b.ident(a[1].Bytes, 1); err != nil {
			return prefix(err, "In: ")
		}
	}
	return nil
}

// where emits ` WHERE f` for Find; an absent or empty filter emits nothing.
func (b *Builder) where() error {
	if !b.p.has.has(mFind) {
		return nil
	}
	if err := b.nargs(mFind, 1, 1); err != nil {
		return err
	}
	f := b.p.args[mFind].Items[0]
	if f.Kind != wire.Map {
		return errorf("Find: argument 1 must be a filter map, got %s", f.Kind)
	}
	if f.Len() == 0 {
		return nil
	}
	b.w(" WHERE ")
	return b.filter(f, false, 0)
}

const validFields = `a column ("c" or "t.c"), "*", "t.*", or count(*), count(c), sum(c), avg(c), min(c), max(c), each optionally followed by " as alias"`

// fields emits the select list; default `*`.
func (b *Builder) fields() error {
	if !b.p.has.has(mFields) {
		b.w("*")
		return nil
	}
	if err := b.nargs(mFields, 1, many); err != nil {
		return err
	}
	for i, f := range b.p.args[mFields].Items {
		if i > 0 {
			b.w(", ")
		}
		if f.Kind != wire.Str {
			return errorf("%s: argument %d must be a string, got %s", b.p.name[mFields], i+1, f.Kind)
		}
		if err := b.field(f.Bytes); err != nil {
			return prefix(err, "%s: ", b.p.name[mFields])
		}
	}
	return nil
}

// field emits one select-list entry. The accepted grammar is exactly
// expr[ as alias] with single spaces; aggregate names are matched
// case-insensitively and emitted in lower case, `as` as ` AS `.
func (b *Builder) field(f []byte) error {
	expr, alias := f, []byte(nil)
	if sp := bytes.IndexByte(f, ' '); sp >= 0 {
		r := f[sp:] // " as alias"
		if len(r) < 5 || r[1]|0x20 != 'a' || r[2]|0x20 != 's' || r[3] != ' ' {
			return errorf("invalid field %s; a field is %s", q(f), validFields)
		}
		expr, alias = f[:sp], r[4:]
	}
	switch {
	// Byte compares, not bytes.HasSuffix: memequal loads whole words, and at
	// the very end of the caller's request buffer that reads bytes past it
	// (harmless, but Valgrind reports the branch on them).
	case string(expr) == "*" || len(expr) >= 2 && expr[len(expr)-2] == '.' && expr[len(expr)-1] == '*':
		if alias != nil {
			return errorf("invalid field %s: %s cannot have an alias", q(f), q(expr))
		}
		if len(expr) > 1 {
			if err := b.ident(expr[:len(expr)-2], 1); err != nil {
				return err
			}
			b.w(".")
		}
		b.w("*")
	case len(expr) > 0 && expr[len(expr)-1] == ')':
		open := bytes.IndexByte(expr, '(')
		if open < 0 {
			return errorf("invalid field %s; a field is %s", q(f), validFields)
		}
		fn, arg := expr[:open], expr[open+1:len(expr)-1]
		name := aggregate(fn)
		if name == "" {
			return errorf("unknown aggregate %s in field %s; valid aggregates: count, sum, avg, min, max", q(fn), q(f))
		}
		at := len(b.sql)
		b.w(name)
		b.w("(")
		if name == "count" && string(arg) == "*" {
			b.w("*")
		} else if err := b.ident(arg, 2); err != nil {
			return err
		}
		b.w(")")
		if alias == nil && b.dialect == PostgreSQL {
			return b.sqliteLabel(at)
		}
	default:
		if err := b.ident(expr, 2); err != nil {
			return err
		}
	}
	if alias != nil {
		b.w(" AS ")
		return b.ident(alias, 1)
	}
	return nil
}

func aggregate(fn []byte) string {
	for _, a := range [...]string{"count", "sum", "avg", "min", "max"} {
		if bytes.EqualFold(fn, []byte(a)) {
			return a
		}
	}
	return ""
}

// joins emits each Join entry as ` INNER JOIN "t" AS "a" ON f`.
func (b *Builder) joins() error {
	if !b.p.has.has(mJoin) {
		return nil
	}
	if err := b.nargs(mJoin, 1, many); err != nil {
		return err
	}
	for i, j := range b.p.args[mJoin].Items {
		if err := b.join(j); err != nil {
			return prefix(err, "Join %d: ", i+1)
		}
	}
	return nil
}

func (b *Builder) join(j wire.Value) error {
	if j.Kind != wire.Map {
		return errorf("must be a map {$for, $do, $as}, got %s", j.Kind)
	}
	var forV, doV, asV wire.Value
	for i := 0; i < j.Len(); i++ {
		k := j.Key(i)
		var dst *wire.Value
		switch {
		case k.Kind != wire.Str:
			return errorf("keys must be strings, got %s; valid keys: $for, $do, $as", k.Kind)
		case string(k.Bytes) == "$for":
			dst = &forV
		case string(k.Bytes) == "$do":
			dst = &doV
		case string(k.Bytes) == "$as":
			dst = &asV
		default:
			return errorf("unknown key %s; valid keys: $for, $do, $as", q(k.Bytes))
		}
		if dst.Kind != wire.Nil || dst.Items != nil || dst.Bytes != nil {
			return errorf("duplicate key %s", q(k.Bytes))
		}
		*dst = j.Val(i)
		if dst.Kind == wire.Nil {
			return errorf("%s must not be nil", k.Bytes)
		}
	}
	kw := " INNER JOIN "
	if asV.Kind != wire.Nil {
		if asV.Kind != wire.Str {
			return errorf("$as must be a string, got %s; valid: \"inner\", \"left\", \"cross\", \"full outer\"", asV.Kind)
		}
		switch string(asV.Bytes) {
		case "inner":
		case "left":
			kw = " LEFT JOIN "
		case "cross":
			kw = " CROSS JOIN "
		case "full outer":
			kw = " FULL OUTER JOIN "
		default:
			return errorf("unknown join type %s; valid: \"inner\", \"left\", \"cross\", \"full outer\"", q(asV.Bytes))
		}
	}
	if forV.Kind != wire.Str {
		if forV.Kind == wire.Nil {
			return errorf("missing $for (the joined table, \"table\" or \"table alias\")")
		}
		return errorf("$for must be a string (\"table\" or \"table alias\"), got %s", forV.Kind)
	}
	hasOn := doV.Kind == wire.Map && doV.Len() > 0
	if b.dialect == PostgreSQL && kw == " CROSS JOIN " && hasOn {
		kw = " INNER JOIN " // SQLite's CROSS JOIN ... ON is an inner join; PostgreSQL's has no ON
	}
	b.w(kw)
	t, alias := forV.Bytes, []byte(nil)
	if sp := bytes.IndexByte(t, ' '); sp >= 0 {
		t, alias = t[:sp], t[sp+1:]
	}
	if err := b.tableName(t); err != nil {
		return prefix(err, "$for %s: ", q(forV.Bytes))
	}
	if alias != nil {
		b.w(" AS ")
		if err := b.ident(alias, 1); err != nil {
			return prefix(err, "$for %s: ", q(forV.Bytes))
		}
	}
	if doV.Kind != wire.Nil && doV.Kind != wire.Map {
		return errorf("$do must be a filter map, got %s", doV.Kind)
	}
	if !hasOn {
		if b.dialect == PostgreSQL && kw != " CROSS JOIN " {
			b.w(" ON 1 = 1") // PostgreSQL's joins other than CROSS need ON; SQLite's without one pair every row
		}
		return nil
	}
	b.w(" ON ")
	return b.filter(doV, true, 0)
}

// group emits ` GROUP BY "k", ...`.
func (b *Builder) group() error {
	if !b.p.has.has(mGroup) {
		return nil
	}
	if err := b.nargs(mGroup, 1, many); err != nil {
		return err
	}
	b.w(" GROUP BY ")
	for i, k := range b.p.args[mGroup].Items {
		if i > 0 {
			b.w(", ")
		}
		if k.Kind != wire.Str {
			return errorf("Group: argument %d must be a string (a column), got %s", i+1, k.Kind)
		}
		if err := b.ident(k.Bytes, 2); err != nil {
			return prefix(err, "Group: ")
		}
	}
	return nil
}

// sort emits ` ORDER BY "k" ASC, ...` in map order.
func (b *Builder) sort() error {
	if !b.p.has.has(mSort) {
		return nil
	}
	if err := b.nargs(mSort, 1, 1); err != nil {
		return err
	}
	m := b.p.args[mSort].Items[0]
	if m.Kind != wire.Map || m.Len() == 0 {
		return errorf("Sort: argument 1 must be a non-empty map {column: 1 | -1 | \"asc\" | \"desc\"}, got %s", describe(m))
	}
	b.w(" ORDER BY ")
	for i := 0; i < m.Len(); i++ {
		if i > 0 {
			b.w(", ")
		}
		k, d := m.Key(i), m.Val(i)
		if k.Kind != wire.Str {
			return errorf("Sort: keys must be strings (columns), got %s", k.Kind)
		}
		if err := b.ident(k.Bytes, 2); err != nil {
			return prefix(err, "Sort: ")
		}
		switch {
		case d.Kind == wire.Int && d.Int() == 1, d.Kind == wire.Str && bytes.EqualFold(d.Bytes, []byte("asc")):
			b.w(pick(b.dialect == PostgreSQL, " ASC NULLS FIRST", " ASC"))
		case d.Kind == wire.Int && d.Int() == -1, d.Kind == wire.Str && bytes.EqualFold(d.Bytes, []byte("desc")):
			b.w(pick(b.dialect == PostgreSQL, " DESC NULLS LAST", " DESC"))
		default:
			return errorf("Sort: direction of %s must be 1, -1, \"asc\" or \"desc\", got %s", q(k.Bytes), describe(d))
		}
	}
	return nil
}

// limit emits ` LIMIT ?` and ` OFFSET ?`. SQLite has no OFFSET without
// LIMIT, and LIMIT -1 means "no limit"; the -1 is a constant of the SQL shape,
// not a request value. PostgreSQL takes OFFSET alone (and refuses LIMIT -1).
func (b *Builder) limit() error {
	lim, err := b.count(mLimit)
	if err != nil {
		return err
	}
	off, err := b.count(mOffset)
	if err != nil {
		return err
	}
	if lim.Kind != wire.Nil {
		b.w(" LIMIT ")
		if err := b.bindChecked(lim); err != nil {
			return err
		}
	} else if off.Kind != wire.Nil && b.dialect == SQLite {
		b.w(" LIMIT -1")
	}
	if off.Kind != wire.Nil {
		b.w(" OFFSET ")
		return b.bindChecked(off)
	}
	return nil
}

// count validates the single non-negative integer argument of Limit/Offset;
// Nil means the method is absent.
func (b *Builder) count(m method) (wire.Value, error) {
	if !b.p.has.has(m) {
		return wire.Value{}, nil
	}
	if err := b.nargs(m, 1, 1); err != nil {
		return wire.Value{}, err
	}
	n := b.p.args[m].Items[0]
	switch {
	case n.Kind == wire.Int && n.Int() >= 0:
		return n, nil
	case n.Kind == wire.Uint:
		return wire.Value{}, errorf("%s: argument 1: integer out of range (%d is above 2^63-1)", methodNames[m], n.Uint())
	case n.Kind == wire.Int:
		return wire.Value{}, errorf("%s: argument 1 must be a non-negative integer, got %d", methodNames[m], n.Int())
	}
	return wire.Value{}, errorf("%s: argument 1 must be a non-negative integer, got %s", methodNames[m], n.Kind)
}
