package wire

import (
	"errors"
	"fmt"
	"math"

	"github.com/tinylib/msgp/msgp"
)

// MaxDepth bounds nesting so that a hostile request cannot exhaust the stack
// or build a tree deeper than any query needs.
const MaxDepth = 64

// DecodeError reports a request that is not well-formed MessagePack.
type DecodeError struct{ Msg string }

func (e *DecodeError) Error() string { return e.Msg }

// Decoder turns request bytes into a Value tree. It allocates container
// storage from chunks it keeps between calls, so a Decoder reused from a pool
// decodes a typical request without allocating. Not safe for concurrent use.
type Decoder struct {
	chunk []Value
	used  [][]Value // chunks handed out since Reset, to clear on Reset
}

const chunkSize = 128

// Reset forgets the previous tree, clearing references so that the pooled
// decoder does not keep request memory reachable.
func (d *Decoder) Reset() {
	clear(d.chunk) // only the used part: the rest was never written
	d.chunk = d.chunk[:0]
	for _, c := range d.used {
		clear(c)
	}
	clear(d.used)
	d.used = d.used[:0]
}

func (d *Decoder) alloc(n int) []Value {
	if n > cap(d.chunk)-len(d.chunk) {
		if cap(d.chunk) > 0 {
			d.used = append(d.used, d.chunk)
		}
		d.chunk = make([]Value, 0, max(chunkSize, n))
	}
	l := len(d.chunk)
	d.chunk = d.chunk[:l+n]
	return d.chunk[l : l+n : l+n]
}

// Decode parses exactly one MessagePack value filling all of b. Strings and
// binaries in the result alias b.
func (d *Decoder) Decode(b []byte) (Value, error) {
	v, rest, err := d.value(b, 0)
	if err != nil {
		return Value{}, err
	}
	if len(rest) != 0 {
		return Value{}, &DecodeError{fmt.Sprintf("malformed request: %d trailing bytes after the MessagePack value", len(rest))}
	}
	return v, nil
}

func wrap(err error) error {
	if errors.Is(err, msgp.ErrShortBytes) {
		return &DecodeError{"malformed request: truncated MessagePack"}
	}
	return &DecodeError{"malformed request: " + err.Error()}
}

func (d *Decoder) value(b []byte, depth int) (Value, []byte, error) {
	if len(b) == 0 {
		return Value{}, b, &DecodeError{"malformed request: truncated MessagePack"}
	}
	if depth > MaxDepth {
		return Value{}, b, &DecodeError{fmt.Sprintf("malformed request: nesting deeper than %d levels", MaxDepth)}
	}
	var err error
	switch t := msgp.NextType(b); t {
	case msgp.NilType:
		b, err = msgp.ReadNilBytes(b)
		return Value{Kind: Nil}, b, wrapIf(err)
	case msgp.BoolType:
		var x bool
		x, b, err = msgp.ReadBoolBytes(b)
		return MakeBool(x), b, wrapIf(err)
	case msgp.IntType:
		var x int64
		x, b, err = msgp.ReadInt64Bytes(b)
		return MakeInt(x), b, wrapIf(err)
	case msgp.UintType:
		var x uint64
		x, b, err = msgp.ReadUint64Bytes(b)
		if x <= math.MaxInt64 {
			return MakeInt(int64(x)), b, wrapIf(err)
		}
		return Value{Kind: Uint, num: x}, b, wrapIf(err)
	case msgp.Float32Type:
		var x float32
		x, b, err = msgp.ReadFloat32Bytes(b)
		return MakeFloat(float64(x)), b, wrapIf(err)
	case msgp.Float64Type:
		var x float64
		x, b, err = msgp.ReadFloat64Bytes(b)
		return MakeFloat(x), b, wrapIf(err)
	case msgp.StrType:
		var s []byte
		s, b, err = msgp.ReadStringZC(b)
		return Value{Kind: Str, Bytes: s}, b, wrapIf(err)
	case msgp.BinType:
		var s []byte
		s, b, err = msgp.ReadBytesZC(b)
		return Value{Kind: Bin, Bytes: s}, b, wrapIf(err)
	case msgp.ArrayType:
		var n uint32
		n, b, err = msgp.ReadArrayHeaderBytes(b)
		if err != nil {
			return Value{}, b, wrap(err)
		}
		// Every element takes at least one byte: a header claiming more
		// elements than bytes remain is truncated, and must not allocate.
		if int64(n) > int64(len(b)) {
			return Value{}, b, &DecodeError{"malformed request: truncated MessagePack (array longer than the input)"}
		}
		items := d.alloc(int(n))
		for i := range items {
			items[i], b, err = d.value(b, depth+1)
			if err != nil {
				return Value{}, b, err
			}
		}
		return Value{Kind: Array, Items: items}, b, nil
	case msgp.MapType:
		var n uint32
		n, b, err = msgp.ReadMapHeaderBytes(b)
		if err != nil {
			return Value{}, b, wrap(err)
		}
		if 2*int64(n) > int64(len(b)) {
			return Value{}, b, &DecodeError{"malformed request: truncated MessagePack (map longer than the input)"}
		}
		items := d.alloc(2 * int(n))
		for i := range items {
			items[i], b, err = d.value(b, depth+1)
			if err != nil {
				return Value{}, b, err
			}
		}
		return Value{Kind: Map, Items: items}, b, nil
	case msgp.ExtensionType, msgp.TimeType, msgp.Complex64Type, msgp.Complex128Type:
		return Value{}, b, &DecodeError{"malformed request: MessagePack extension types are not supported"}
	default:
		return Value{}, b, &DecodeError{fmt.Sprintf("malformed request: invalid MessagePack byte 0x%02x", b[0])}
	}
}

func wrapIf(err error) error {
	if err != nil {
		return wrap(err)
	}
	return nil
}
