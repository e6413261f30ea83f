package wire

import (
	"errors"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/tinylib/msgp/msgp"
)

// MaxDepth bounds nesting so that a hostile request cannot exhaust the stack
// or build a tree deeper than any query needs.
const MaxDepth = 64

// DecodeError reports a request that is not well-formed MessagePack.
type DecodeError struct{ Msg string }

func (e *DecodeError) Error() string { return e.Msg }

// UTF8Error reports a MessagePack str that is not valid UTF-8. The request is
// well-formed MessagePack, so this is an invalid request rather than a
// malformed one; it is refused because the string would be stored as TEXT
// and echoed back, and strict decoders would then reject the response.
// Bytes travel as bin.
type UTF8Error struct {
	Offset int // byte offset of the str's header in the request
	Str    []byte
}

func (e *UTF8Error) Error() string {
	s := e.Str
	const show = 32
	more := ""
	if len(s) > show {
		s, more = s[:show], "..."
	}
	return fmt.Sprintf("invalid request: the string at byte %d (%q%s) is not valid UTF-8; send bytes as MessagePack bin", e.Offset, s, more)
}

// Decoder turns request bytes into a Value tree. It allocates container
// storage from chunks it keeps between calls, so a Decoder reused from a pool
// decodes a request without allocating once warm. Not safe for concurrent use.
type Decoder struct {
	chunk []Value   // current chunk; len = values handed out from it
	used  [][]Value // earlier chunks handed out since Reset
	spare [][]Value // cleared chunks ready for reuse
	size  int       // length of the request being decoded, to report offsets
	// scalars counts the scalars decoded so far: Value.Pos.
	scalars uint32
}

const chunkSize = 128

// Reset forgets the previous tree. Used values are cleared so a pooled
// decoder keeps no request memory reachable; chunks are kept for reuse.
func (d *Decoder) Reset() {
	clear(d.chunk) // only the used part: the rest was never written
	d.chunk = d.chunk[:0]
	for i, c := range d.used {
		clear(c)
		d.spare = append(d.spare, c[:0])
		d.used[i] = nil
	}
	d.used = d.used[:0]
}

func (d *Decoder) alloc(n int) []Value {
	if n > cap(d.chunk)-len(d.chunk) {
		if cap(d.chunk) > 0 {
			d.used = append(d.used, d.chunk)
		}
		d.chunk = nil
		if k := len(d.spare); k > 0 && cap(d.spare[k-1]) >= n {
			d.chunk, d.spare = d.spare[k-1], d.spare[:k-1]
		} else {
			d.chunk = make([]Value, 0, max(chunkSize, n))
		}
	}
	l := len(d.chunk)
	d.chunk = d.chunk[:l+n]
	return d.chunk[l : l+n : l+n]
}

var (
	errTruncated = &DecodeError{"malformed request: truncated MessagePack"}
	errTooDeep   = &DecodeError{fmt.Sprintf("malformed request: nesting deeper than %d levels", MaxDepth)}
)

// Decode parses exactly one MessagePack value filling all of b. Strings and
// binaries in the result alias b.
func (d *Decoder) Decode(b []byte) (Value, error) {
	var v Value
	d.size = len(b)
	d.scalars = 0
	rest, err := d.value(b, 0, &v)
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
		return errTruncated
	}
	return &DecodeError{"malformed request: " + err.Error()}
}

// value decodes one value into *v.
func (d *Decoder) value(b []byte, depth int, v *Value) ([]byte, error) {
	if depth >= MaxDepth {
		if len(b) == 0 {
			return b, errTruncated
		}
		return b, errTooDeep
	}
	rest, n, err := token(b, d.size, v)
	if err != nil || (v.Kind != Array && v.Kind != Map) {
		if err == nil {
			d.scalars++
			v.pos = d.scalars
		}
		return rest, err
	}
	return d.container(rest, n, v.Kind, depth, v)
}

// token reads the value at the start of b: a scalar whole into *v, or a
// container's header only (v.Kind Array or Map, its item count -- keys and
// values for a map -- in n). The one-byte formats that make up almost every
// request (positive and negative fixint, fixstr, fixarray, fixmap) are read
// inline, because decoding is the largest cost of a round trip after SQLite
// itself; every other format goes through msgp. size is the request's
// length, to report offsets.
func token(b []byte, size int, v *Value) (rest []byte, n int, err error) {
	if len(b) == 0 {
		return b, 0, errTruncated
	}
	switch c := b[0]; {
	case c <= 0x7f: // positive fixint
		*v = Value{Kind: Int, num: uint64(c)}
		return b[1:], 0, nil
	case c >= 0xe0: // negative fixint
		*v = Value{Kind: Int, num: uint64(int64(int8(c)))}
		return b[1:], 0, nil
	case c&0xe0 == 0xa0: // fixstr
		n := 1 + int(c&0x1f)
		if len(b) < n {
			return b, 0, errTruncated
		}
		if !utf8.Valid(b[1:n]) {
			return b, 0, &UTF8Error{Offset: size - len(b), Str: b[1:n]}
		}
		*v = Value{Kind: Str, Bytes: b[1:n:n]}
		return b[n:], 0, nil
	case c&0xf0 == 0x90: // fixarray
		return containerHeader(b[1:], int(c&0x0f), Array, v)
	case c&0xf0 == 0x80: // fixmap
		return containerHeader(b[1:], 2*int(c&0x0f), Map, v)
	}
	return slow(b, size, v)
}

// containerHeader checks n items can follow: every element takes at least
// one byte, so a header claiming more elements than bytes remain is
// truncated, and must not allocate.
func containerHeader(b []byte, n int, kind Kind, v *Value) ([]byte, int, error) {
	if n > len(b) {
		return b, 0, errTruncated
	}
	*v = Value{Kind: kind}
	return b, n, nil
}

// container decodes n values (for a map: keys and values interleaved).
func (d *Decoder) container(b []byte, n int, kind Kind, depth int, v *Value) ([]byte, error) {
	items := d.alloc(n)
	var err error
	for i := range items {
		if b, err = d.value(b, depth+1, &items[i]); err != nil {
			return b, err
		}
	}
	*v = Value{Kind: kind, Items: items}
	return b, nil
}

func slow(b []byte, size int, v *Value) ([]byte, int, error) {
	var err error
	switch t := msgp.NextType(b); t {
	case msgp.NilType:
		b, err = msgp.ReadNilBytes(b)
		*v = Value{Kind: Nil}
	case msgp.BoolType:
		var x bool
		x, b, err = msgp.ReadBoolBytes(b)
		*v = MakeBool(x)
	case msgp.IntType:
		var x int64
		x, b, err = msgp.ReadInt64Bytes(b)
		*v = MakeInt(x)
	case msgp.UintType:
		var x uint64
		x, b, err = msgp.ReadUint64Bytes(b)
		if x <= math.MaxInt64 {
			*v = MakeInt(int64(x))
		} else {
			*v = Value{Kind: Uint, num: x}
		}
	case msgp.Float32Type:
		var x float32
		x, b, err = msgp.ReadFloat32Bytes(b)
		*v = MakeFloat(float64(x))
	case msgp.Float64Type:
		var x float64
		x, b, err = msgp.ReadFloat64Bytes(b)
		*v = MakeFloat(x)
	case msgp.StrType:
		var s []byte
		at := b
		s, b, err = msgp.ReadStringZC(b)
		if err == nil && !utf8.Valid(s) {
			return at, 0, &UTF8Error{Offset: size - len(at), Str: s}
		}
		*v = Value{Kind: Str, Bytes: s}
	case msgp.BinType:
		var s []byte
		s, b, err = msgp.ReadBytesZC(b)
		*v = Value{Kind: Bin, Bytes: s}
	case msgp.ArrayType:
		var n uint32
		if n, b, err = msgp.ReadArrayHeaderBytes(b); err != nil {
			return b, 0, wrap(err)
		}
		if int64(n) > int64(len(b)) {
			return b, 0, errTruncated
		}
		*v = Value{Kind: Array}
		return b, int(n), nil
	case msgp.MapType:
		var n uint32
		if n, b, err = msgp.ReadMapHeaderBytes(b); err != nil {
			return b, 0, wrap(err)
		}
		if 2*int64(n) > int64(len(b)) {
			return b, 0, errTruncated
		}
		*v = Value{Kind: Map}
		return b, 2 * int(n), nil
	case msgp.ExtensionType, msgp.TimeType, msgp.Complex64Type, msgp.Complex128Type:
		return b, 0, &DecodeError{"malformed request: MessagePack extension types are not supported"}
	default:
		return b, 0, &DecodeError{fmt.Sprintf("malformed request: invalid MessagePack byte 0x%02x", b[0])}
	}
	if err != nil {
		return b, 0, wrap(err)
	}
	return b, 0, nil
}
