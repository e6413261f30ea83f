package query

import (
	"bytes"
	"strconv"
)

// Dialect is the SQL a Builder emits: SQLite's (the default) or
// PostgreSQL's. The request protocol is the same for both; where the two
// servers would answer one request differently, the PostgreSQL dialect
// either emits the SQL that answers as SQLite does or refuses the request
// with a message saying why (docs/protocol.md, "On PostgreSQL"):
//
//	                     SQLite                 PostgreSQL
//	placeholders         ?                      $1, $2, ... (numbered per statement)
//	Offset without Limit LIMIT -1 OFFSET ?      OFFSET $n
//	$like / $nlike       LIKE ? (ASCII case-    ILIKE $n ESCAPE '' (case-insensitive, and
//	                     insensitive, no        no escape character: PostgreSQL's LIKE is
//	                     escape character)      case-sensitive and escapes with \ by default)
//	$glob                GLOB ?                 refused: PostgreSQL has no GLOB
//	identifier parts     at most 128 bytes      at most 63 bytes: PostgreSQL truncates
//	                                            longer names without an error, so two
//	                                            long names would silently be one
//	In, Join's $for      table or schema.table  a plain table: the request's db is the
//	                                            schema, and no request reaches another
//	OnConflict([])       any conflict           with DoNothing only: PostgreSQL's DO
//	                                            UPDATE needs a conflict target
//	Sort                 NULLs sort first       ASC NULLS FIRST, DESC NULLS LAST (PostgreSQL
//	                     ascending              sorts NULLs last ascending)
//	count(*), sum(x)     column named by the    AS "count(*)", AS "sum(""x"")" (PostgreSQL
//	without an alias     text: sum("x")         would name it count, sum)
//	Join without $do     every pair of rows     ON 1 = 1 (PostgreSQL's joins need ON)
//	cross Join with $do  an inner join          INNER JOIN ... ON (PostgreSQL's CROSS JOIN
//	                                            has no ON)
type Dialect uint8

const (
	SQLite Dialect = iota
	PostgreSQL
)

func (d Dialect) String() string {
	if d == PostgreSQL {
		return "PostgreSQL"
	}
	return "SQLite"
}

// maxPostgresIdent is NAMEDATALEN - 1, the longest identifier PostgreSQL
// keeps (a longer one is truncated, with only a NOTICE).
const maxPostgresIdent = 63

// SetDialect chooses the dialect of the next builds. A pooled Builder serves
// handles of both backends, so the engine sets it before every request.
func (b *Builder) SetDialect(d Dialect) { b.dialect = d }

// placeholder appends the parameter marker of the arg just appended.
func (b *Builder) placeholder() {
	if b.dialect == PostgreSQL {
		b.sql = append(b.sql, '$')
		b.sql = strconv.AppendInt(b.sql, int64(len(b.args)-b.first), 10)
		return
	}
	b.sql = append(b.sql, '?')
}

// checkIdent validates name as up to maxParts parts in the builder's
// dialect.
func (b *Builder) checkIdent(name []byte, maxParts int) error {
	if !validIdent(name, maxParts) {
		return identErr(name, maxParts)
	}
	if b.dialect == PostgreSQL {
		for part := range bytes.SplitSeq(name, []byte{'.'}) {
			if len(part) > maxPostgresIdent {
				return errorf("invalid identifier %s: a part has %d bytes; PostgreSQL keeps at most %d (it truncates longer names silently, so the DAL refuses them)", q(name), len(part), maxPostgresIdent)
			}
		}
	}
	return nil
}

// sqliteLabel names the aggregate emitted from b.sql[at:] as SQLite does,
// by its text (count(*), sum("age")): PostgreSQL would name it by the
// function alone (count, sum).
func (b *Builder) sqliteLabel(at int) error {
	expr := b.sql[at:]
	label := 2 + len(expr) + bytes.Count(expr, []byte{'"'})
	if label-2 > maxPostgresIdent {
		return errorf("aggregate %s needs a column name of %d bytes, PostgreSQL keeps at most %d; give it a shorter alias with \" as name\"", q(expr), label-2, maxPostgresIdent)
	}
	b.sql = append(b.sql, " AS \""...)
	for i := at; i < at+len(expr); i++ {
		c := b.sql[i] // b.sql grows, expr may move: index it afresh
		if c == '"' {
			b.sql = append(b.sql, '"')
		}
		b.sql = append(b.sql, c)
	}
	b.sql = append(b.sql, '"')
	return nil
}

// tableName appends the table of In or Join's $for.
func (b *Builder) tableName(name []byte) error {
	if b.dialect == PostgreSQL && bytes.IndexByte(name, '.') >= 0 && validIdent(name, 2) {
		return errorf("invalid table %s: on PostgreSQL a table is a plain name; the request's db names its schema, and a request cannot reach another schema", q(name))
	}
	return b.ident(name, 2)
}
