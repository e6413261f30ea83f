package postgres

import (
	"encoding/binary"
	"math"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/tinylib/msgp/msgp"
)

// The values of a rows response, in the forms SQLite's rows take
// (docs/protocol.md, Responses), so that a caller reads the same types
// from either backend:
//
//	smallint, integer, bigint, oid   int (the smallest MessagePack form, as msgp writes it)
//	real, double precision           float64 (real widened exactly)
//	boolean                          int 1 / 0 (SQLite has no boolean: a true is stored as 1)
//	numeric                          int when it has no fraction digits and fits int64, else
//	                                 float64: sum() of bigints is numeric on PostgreSQL and an
//	                                 integer on SQLite, avg() is numeric and a REAL
//	bytea                            bin
//	text and every other type        str, PostgreSQL's text form (dates, uuid, json, ...)
//	NULL                             nil
//
// The fixed-width types are read in binary format, the rest in text.

// resultFormats is the format to read each column in.
func resultFormats(fields []pgconn.FieldDescription) []int16 {
	f := make([]int16, len(fields))
	for i, fd := range fields {
		switch fd.DataTypeOID {
		case pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID, pgtype.OIDOID,
			pgtype.Float4OID, pgtype.Float8OID, pgtype.BoolOID, pgtype.ByteaOID:
			f[i] = binaryFormat
		}
	}
	return f
}

// appendColumns appends the array of column names.
func appendColumns(out []byte, fields []pgconn.FieldDescription) []byte {
	out = msgp.AppendArrayHeader(out, uint32(len(fields)))
	for _, fd := range fields {
		out = msgp.AppendString(out, fd.Name)
	}
	return out
}

// appendRow appends one row as an array of values.
func appendRow(out []byte, fields []pgconn.FieldDescription, values [][]byte) []byte {
	out = msgp.AppendArrayHeader(out, uint32(len(values)))
	for i, v := range values {
		out = appendValue(out, fields[i].DataTypeOID, v)
	}
	return out
}

func appendValue(out []byte, oid uint32, v []byte) []byte {
	if v == nil {
		return msgp.AppendNil(out)
	}
	switch oid {
	case pgtype.Int2OID:
		return msgp.AppendInt64(out, int64(int16(binary.BigEndian.Uint16(v))))
	case pgtype.Int4OID:
		return msgp.AppendInt64(out, int64(int32(binary.BigEndian.Uint32(v))))
	case pgtype.Int8OID:
		return msgp.AppendInt64(out, int64(binary.BigEndian.Uint64(v)))
	case pgtype.OIDOID:
		return msgp.AppendInt64(out, int64(binary.BigEndian.Uint32(v)))
	case pgtype.Float4OID:
		return msgp.AppendFloat64(out, float64(math.Float32frombits(binary.BigEndian.Uint32(v))))
	case pgtype.Float8OID:
		return msgp.AppendFloat64(out, math.Float64frombits(binary.BigEndian.Uint64(v)))
	case pgtype.BoolOID:
		if len(v) == 1 && v[0] != 0 {
			return msgp.AppendInt64(out, 1)
		}
		return msgp.AppendInt64(out, 0)
	case pgtype.ByteaOID:
		return msgp.AppendBytes(out, v)
	case pgtype.NumericOID:
		return appendNumeric(out, v)
	}
	return msgp.AppendStringFromBytes(out, v)
}

// appendNumeric appends numeric's text form (-12, 3.50, NaN, Infinity) as
// an int when it has no fraction and fits, else as the nearest float64.
// The scale decides, not the value: sum() of bigints is "6" and an integer
// on SQLite too, avg() is "3.0000000000000000" and a REAL on SQLite.
func appendNumeric(out []byte, text []byte) []byte {
	s := string(text) // short; the conversions below need a string
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return msgp.AppendInt64(out, n)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && f == 0 { // not a number Go reads (never for numeric's output)
		return msgp.AppendString(out, s)
	}
	return msgp.AppendFloat64(out, f) // beyond float64 reads as ±Inf
}
