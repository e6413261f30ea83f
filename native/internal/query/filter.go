package query

import (
	"strconv"

	"dalkit/native/internal/wire"
)

// Filter SQL is canonical so equal query shapes share one cached statement:
//
//	entries of a map        joined with " AND ", in map order
//	column: scalar          "c" = ?
//	column: nil             "c" IS NULL
//	column: {op: v, ...}    each operator, joined with " AND "
//	$and: [f, ...]          (f AND f)
//	$or:  [f, ...]          (f OR f); an f of several terms is parenthesised
//	$not: f                 NOT (f)
//	empty nested filter {}  1 = 1   (matches everything, like Mongo's {})
//	$in: []                 0 = 1   (false: nothing is in an empty list)
//	$nin: []                1 = 1   (true: everything is outside an empty list)
//
// An empty top-level filter (Find [{}], $do {}) emits no WHERE / ON at all.

const validOperators = "$eq, $ne, $gt, $gte, $lt, $lte, $in, $nin, $like, $nlike, $glob, $between, $nbetween"

const validLogical = "$and, $or, $not"

// filter appends the terms of f joined with AND. In a Join's $do (join true)
// a plain string on the right of a column names another column.
func (b *Builder) filter(f wire.Value, join bool, depth int) error {
	if f.Kind != wire.Map {
		return errorf("a filter must be a map, got %s", f.Kind)
	}
	if depth > maxFilterDepth {
		return errorf("filter nested deeper than %d levels", maxFilterDepth)
	}
	if f.Len() == 0 {
		b.w("1 = 1")
		return nil
	}
	for i := 0; i < f.Len(); i++ {
		if i > 0 {
			b.w(" AND ")
		}
		k, v := f.Key(i), f.Val(i)
		if k.Kind != wire.Str {
			return errorf("filter keys must be strings (column names or %s), got %s", validLogical, k.Kind)
		}
		if len(k.Bytes) > 0 && k.Bytes[0] == '$' { // never an identifier: they cannot start with $
			if err := b.logical(k.Bytes, v, join, depth); err != nil {
				return err
			}
			continue
		}
		if err := b.column(k.Bytes, v, join); err != nil {
			return err
		}
	}
	return nil
}

func (b *Builder) logical(op []byte, v wire.Value, join bool, depth int) error {
	var sep string
	switch string(op) {
	case "$and":
		sep = " AND "
	case "$or":
		sep = " OR "
	case "$not":
		if v.Kind != wire.Map {
			return errorf("$not: value must be a filter map, got %s", v.Kind)
		}
		b.w("NOT (")
		if err := b.filter(v, join, depth+1); err != nil {
			return err
		}
		b.w(")")
		return nil
	default:
		return errorf("unknown operator %s in filter; valid here: %s, or a column name (comparison operators go inside a column: {column: {$gt: 1}})", q(op), validLogical)
	}
	if v.Kind != wire.Array || v.Len() == 0 {
		if v.Kind == wire.Array {
			return errorf("%s: needs a non-empty array of filters", op)
		}
		return errorf("%s: value must be an array of filter maps, got %s", op, v.Kind)
	}
	b.w("(")
	for i, sub := range v.Items {
		if i > 0 {
			b.w(sep)
		}
		if sub.Kind != wire.Map {
			return errorf("%s: element %d must be a filter map, got %s", op, i+1, sub.Kind)
		}
		// AND binds tighter than OR, so the parentheses are for readers only;
		// they are emitted by a fixed rule to keep the text canonical.
		group := sep == " OR " && terms(sub) > 1
		if group {
			b.w("(")
		}
		if err := b.filter(sub, join, depth+1); err != nil {
			return err
		}
		if group {
			b.w(")")
		}
	}
	b.w(")")
	return nil
}

// terms counts the AND-ed terms filter emits for f at its top level.
func terms(f wire.Value) int {
	n := 0
	for i := 0; i < f.Len(); i++ {
		if v := f.Val(i); v.Kind == wire.Map && !isLogical(f.Key(i)) && v.Len() > 1 {
			n += v.Len()
		} else {
			n++
		}
	}
	return n
}

func isLogical(k wire.Value) bool {
	return k.Kind == wire.Str && len(k.Bytes) > 0 && k.Bytes[0] == '$'
}

// column appends the terms for one `column: value` entry.
func (b *Builder) column(col []byte, v wire.Value, join bool) error {
	if err := b.checkIdent(col, 2); err != nil {
		return err
	}
	switch v.Kind {
	case wire.Map:
		if v.Len() == 0 {
			return errorf("column %s: empty operator map; valid operators: %s", q(col), validOperators)
		}
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.w(" AND ")
			}
			op := v.Key(i)
			if op.Kind != wire.Str {
				return errorf("column %s: operator must be a string, got %s; valid operators: %s", q(col), op.Kind, validOperators)
			}
			if err := b.operator(col, op.Bytes, v.Val(i)); err != nil {
				return err
			}
		}
		return nil
	case wire.Array:
		return errorf("column %s: value must be a scalar or an operator map, got array (use {$in: [...]} to match a list)", q(col))
	case wire.Nil:
		b.ident(col, 2)
		b.w(" IS NULL")
		return nil
	case wire.Str:
		if join {
			// In $do a plain string is the other side of the join condition.
			b.ident(col, 2)
			b.w(" = ")
			if err := b.ident(v.Bytes, 2); err != nil {
				return prefix(err, "$do: column %s compared with a plain string, which names a column (use {$eq: \"text\"} for a string value): ", q(col))
			}
			return nil
		}
	}
	b.ident(col, 2)
	b.w(" = ")
	return colErr(col, b.bind(v))
}

func colErr(col []byte, err error) error {
	if err != nil {
		return prefix(err, "column %s: ", q(col))
	}
	return nil
}

// operator appends `"col" <op> ...` for one operator of an operator map.
func (b *Builder) operator(col, op []byte, v wire.Value) error {
	var sqlOp string
	switch string(op) {
	case "$eq", "$ne":
		if v.Kind == wire.Nil {
			b.ident(col, 2)
			if op[1] == 'e' {
				b.w(" IS NULL")
			} else {
				b.w(" IS NOT NULL")
			}
			return nil
		}
		sqlOp = " = "
		if op[1] == 'n' {
			sqlOp = " != "
		}
	case "$gt":
		sqlOp = " > "
	case "$gte":
		sqlOp = " >= "
	case "$lt":
		sqlOp = " < "
	case "$lte":
		sqlOp = " <= "
	case "$like", "$nlike", "$glob":
		if v.Kind != wire.Str {
			return errorf("%s on column %s: value must be a string pattern, got %s", op, q(col), v.Kind)
		}
		switch {
		case op[1] == 'g' && b.dialect == PostgreSQL:
			return errorf("$glob on column %s: PostgreSQL has no GLOB, and the DAL does not rewrite patterns; use $like (case-insensitive, %% and _)", q(col))
		case op[1] == 'g':
			sqlOp = " GLOB "
		case b.dialect == PostgreSQL:
			// ILIKE: SQLite's LIKE ignores ASCII case. ESCAPE '': SQLite's
			// LIKE has no escape character, PostgreSQL's is \ by default.
			sqlOp = pick(op[1] == 'l', " ILIKE ", " NOT ILIKE ")
		default:
			sqlOp = pick(op[1] == 'l', " LIKE ", " NOT LIKE ")
		}
	case "$in", "$nin":
		return b.in(col, op, v)
	case "$between", "$nbetween":
		if v.Kind != wire.Array || v.Len() != 2 || !v.Items[0].IsScalar() || !v.Items[1].IsScalar() {
			return errorf("%s on column %s: value must be an array [low, high] of two scalars, got %s", op, q(col), describe(v))
		}
		b.ident(col, 2)
		if op[1] == 'n' {
			b.w(" NOT")
		}
		b.w(" BETWEEN ")
		if err := b.bind(v.Items[0]); err != nil {
			return colErr(col, err)
		}
		b.w(" AND ")
		return colErr(col, b.bind(v.Items[1]))
	default:
		return errorf("unknown operator %s on column %s; valid operators: %s", q(op), q(col), validOperators)
	}
	if !v.IsScalar() {
		return errorf("%s on column %s: value must be a scalar, got %s", op, q(col), v.Kind)
	}
	b.ident(col, 2)
	b.w(sqlOp)
	if err := b.bind(v); err != nil {
		return colErr(col, err)
	}
	if sqlOp == " ILIKE " || sqlOp == " NOT ILIKE " {
		b.w(" ESCAPE ''")
	}
	return nil
}

// in appends $in / $nin. The empty-list forms are constants without the
// column (see the table at the top of this file).
func (b *Builder) in(col, op []byte, v wire.Value) error {
	not := op[1] == 'n'
	if v.Kind != wire.Array {
		return errorf("%s on column %s: value must be an array of scalars, got %s", op, q(col), v.Kind)
	}
	if v.Len() == 0 {
		if not {
			b.w("1 = 1")
		} else {
			b.w("0 = 1")
		}
		return nil
	}
	b.ident(col, 2)
	if not {
		b.w(" NOT IN (")
	} else {
		b.w(" IN (")
	}
	for i, x := range v.Items {
		if i > 0 {
			b.w(", ")
		}
		if !x.IsScalar() {
			return errorf("%s on column %s: element %d must be a scalar, got %s", op, q(col), i+1, x.Kind)
		}
		if err := b.bind(x); err != nil {
			return colErr(col, err)
		}
	}
	b.w(")")
	return nil
}

// describe names a value's shape for messages: its kind, plus the length of arrays.
func describe(v wire.Value) string {
	if v.Kind == wire.Array {
		return "array of " + strconv.Itoa(v.Len())
	}
	return v.Kind.String()
}
