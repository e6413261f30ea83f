package postgres

import (
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/jackc/pgx/v5/pgtype"

	"dalkit/native/internal/wire"
)

// Parameters are sent in PostgreSQL's text format, as the value's SQL
// literal would read, and the server converts them to the type it inferred
// for each placeholder from the statement: an integer 5 bound to a text
// column is '5', a string '7' bound to an integer column is 7, a string
// 'x' there is the server's "invalid input syntax" error. This is SQLite's
// type affinity as near as PostgreSQL allows, and what node-postgres does.
//
//	nil     NULL
//	bool    1 / 0 (PostgreSQL reads both as boolean and as integer, as
//	        SQLite binds a bool: docs/protocol.md)
//	int     decimal
//	float   shortest round-trip decimal; NaN, Infinity, -Infinity
//	string  its UTF-8 bytes; to a bytea parameter, the bytes themselves
//	        (binary format), never bytea's escaped text form
//	binary  binary format, to bytea parameters only: to any other type the
//	        server would read the bytes as that type's binary form
//	        (8 bytes as a bigint), so it is an error response instead

const (
	textFormat   = 0
	binaryFormat = 1
)

// paramBuffers are a connection's reusable parameter slices.
type paramBuffers struct {
	values  [][]byte
	formats []int16
	digits  []byte // the text of numbers, sliced by values
}

// mismatch is a parameter the DAL will not send: an error response with
// SQLSTATE 42804 (datatype_mismatch), like the server's own type errors.
type mismatch struct{ msg string }

func (m *mismatch) Error() string { return m.msg }

const mismatchState = "42804"

// encode fills the buffers for args, whose placeholders the server typed
// as oids. The values alias args' bytes and the digit buffer: valid until
// the next encode on this connection.
func (pb *paramBuffers) encode(args []wire.Value, oids []uint32) ([][]byte, []int16, error) {
	if len(oids) != len(args) {
		return nil, nil, fmt.Errorf("the statement has %d parameters, the request bound %d", len(oids), len(args))
	}
	pb.values, pb.formats = pb.values[:0], pb.formats[:0]
	// Numbers are written into one buffer sized for all of them first, so
	// that no append moves it under the slices already taken.
	const maxNumber = 24 // -9223372036854775808, -1.7976931348623157e+308
	if need := maxNumber * len(args); cap(pb.digits) < need {
		pb.digits = make([]byte, 0, need)
	}
	pb.digits = pb.digits[:0]
	for i, a := range args {
		var v []byte
		format := int16(textFormat)
		switch a.Kind {
		case wire.Nil:
		case wire.Bool:
			v = pb.number(strconv.AppendInt, a.Int())
		case wire.Int:
			v = pb.number(strconv.AppendInt, a.Int())
		case wire.Float:
			v = pb.float(a.Float())
		case wire.Str:
			v = a.Bytes
			if oids[i] == pgtype.ByteaOID {
				format = binaryFormat
			}
		case wire.Bin:
			if oids[i] != pgtype.ByteaOID {
				return nil, nil, &mismatch{fmt.Sprintf("parameter $%d is binary, but PostgreSQL typed it %s; binary values go to bytea columns only (send text as a string)", i+1, typeName(oids[i]))}
			}
			v, format = a.Bytes, binaryFormat
		default: // the builder binds scalars only
			return nil, nil, fmt.Errorf("parameter $%d: cannot bind a %s", i+1, a.Kind)
		}
		if v == nil && a.Kind != wire.Nil {
			v = []byte{} // an empty string or blob, not NULL
		}
		pb.values = append(pb.values, v)
		pb.formats = append(pb.formats, format)
	}
	return pb.values, pb.formats, nil
}

func (pb *paramBuffers) number(appendInt func([]byte, int64, int) []byte, n int64) []byte {
	at := len(pb.digits)
	pb.digits = appendInt(pb.digits, n, 10)
	return pb.digits[at:len(pb.digits):len(pb.digits)]
}

func (pb *paramBuffers) float(f float64) []byte {
	at := len(pb.digits)
	switch {
	case math.IsNaN(f):
		pb.digits = append(pb.digits, "NaN"...)
	case math.IsInf(f, 1):
		pb.digits = append(pb.digits, "Infinity"...)
	case math.IsInf(f, -1):
		pb.digits = append(pb.digits, "-Infinity"...)
	default:
		pb.digits = strconv.AppendFloat(pb.digits, f, 'g', -1, 64)
	}
	return pb.digits[at:len(pb.digits):len(pb.digits)]
}

// typeMap knows the names of PostgreSQL's built-in types; read only.
var typeMap = sync.OnceValue(pgtype.NewMap)

// typeName names a type OID for messages.
func typeName(oid uint32) string {
	if t, ok := typeMap().TypeForOID(oid); ok {
		return t.Name
	}
	return "OID " + strconv.FormatUint(uint64(oid), 10)
}
