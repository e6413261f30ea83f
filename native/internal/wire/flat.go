package wire

// Flat is a request read token by token, without building a tree: its
// skeleton (the kind of every value and the length of every container, in
// wire order) and the byte span of each of its scalars. It is what the query
// package's shape cache needs to recognise a request of a shape it has built
// before and take the new values from it (internal/query, shapes.go). Not
// safe for concurrent use; reused across requests.
type Flat struct {
	Skeleton []byte
	Spans    []Span // the bytes of each scalar in the request, in wire order
}

// Span is a half-open byte range of the request.
type Span struct{ From, To int32 }

// Scan reads b and reports whether it is exactly one well-formed value
// within MaxDepth; when it is not, the caller decodes b to get the error.
// Strings are not checked for UTF-8 here: ReadScalar checks those it is
// asked for, and the shape cache compares every other one with the bytes of a
// request that decoded.
func (f *Flat) Scan(b []byte) bool {
	f.Skeleton, f.Spans = f.Skeleton[:0], f.Spans[:0]
	if len(b) > 1<<30 {
		return false // spans are int32; such a request is never a repeated shape
	}
	size := len(b)
	var left [MaxDepth]int32 // items still to read in the container open at each depth
	depth := 0               // values at depth d are items of the container opened at d-1
	left[0] = 1
	for {
		for left[depth] == 0 {
			if depth == 0 {
				return len(b) == 0
			}
			depth--
		}
		left[depth]--
		if len(b) == 0 {
			return false
		}
		// The one-byte formats of almost every request inline, as in
		// token; the others through it.
		var kind Kind
		var n, hdr int
		switch c := b[0]; {
		case c <= 0x7f || c >= 0xe0: // fixint
			kind, hdr = Int, 1
		case c&0xe0 == 0xa0: // fixstr
			kind, hdr = Str, 1+int(c&0x1f)
			if len(b) < hdr {
				return false
			}
		case c&0xf0 == 0x90: // fixarray
			kind, n, hdr = Array, int(c&0x0f), 1
		case c&0xf0 == 0x80: // fixmap
			kind, n, hdr = Map, 2*int(c&0x0f), 1
		default:
			var v Value
			rest, cn, err := token(b, size, &v)
			if err != nil {
				return false
			}
			kind, n, hdr = v.Kind, cn, len(b)-len(rest)
		}
		if kind == Array || kind == Map {
			if n > len(b)-hdr || depth+1 >= MaxDepth && n > 0 {
				return false // truncated, or an item deeper than Decode accepts
			}
			f.Skeleton = appendCount(append(f.Skeleton, byte(kind)), n)
			if n > 0 {
				depth++
				left[depth] = int32(n)
			}
		} else {
			f.Skeleton = append(f.Skeleton, byte(kind))
			at := int32(size - len(b))
			f.Spans = append(f.Spans, Span{at, at + int32(hdr)})
		}
		b = b[hdr:]
	}
}

// ReadScalar decodes the scalar at the start of b into *v as Decode would
// (strings checked for UTF-8) and returns its length, or 0 when b does not
// start with a scalar Decode accepts (*v is then undefined). size is the
// whole request's length, for error offsets.
func ReadScalar(b []byte, size int, v *Value) int {
	rest, _, err := token(b, size, v)
	if err != nil || v.Kind == Array || v.Kind == Map {
		return 0
	}
	return len(b) - len(rest)
}

// ScalarLen is the length of the scalar whose MessagePack header starts b,
// from the header alone, or 0 when b does not start with a whole scalar (a
// container, an extension, a reserved byte, or too few bytes). It checks
// nothing else (ReadScalar does): the shape cache steps over free scalars
// with it while comparing the bytes around them.
func ScalarLen(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n := int(scalarSize[b[0]])
	switch {
	case n == 0:
		return 0
	case n < 0: // str or bin: a 1, 2 or 4-byte big-endian length follows
		hdr := 1 - n
		if len(b) < hdr {
			return 0
		}
		size := 0
		for _, c := range b[1:hdr] {
			size = size<<8 | int(c)
		}
		n = hdr + size
	}
	if n > len(b) {
		return 0
	}
	return n
}

// scalarSize is, by MessagePack header byte, a scalar's whole size, or -k
// for a str or bin whose length follows in k bytes, or 0 for a byte that
// starts no scalar.
var scalarSize = func() (t [256]int8) {
	for c := 0; c < 256; c++ {
		switch {
		case c <= 0x7f || c >= 0xe0, c == 0xc0, c == 0xc2, c == 0xc3: // fixint, nil, bool
			t[c] = 1
		case c&0xe0 == 0xa0: // fixstr
			t[c] = int8(1 + c&0x1f)
		case c == 0xcc || c == 0xd0:
			t[c] = 2
		case c == 0xcd || c == 0xd1:
			t[c] = 3
		case c == 0xce || c == 0xd2 || c == 0xca:
			t[c] = 5
		case c == 0xcf || c == 0xd3 || c == 0xcb:
			t[c] = 9
		case c == 0xd9 || c == 0xc4:
			t[c] = -1
		case c == 0xda || c == 0xc5:
			t[c] = -2
		case c == 0xdb || c == 0xc6:
			t[c] = -4
		}
	}
	return t
}()

// appendCount appends n as a little-endian base-128 varint.
func appendCount(dst []byte, n int) []byte {
	for n >= 0x80 {
		dst = append(dst, byte(n)|0x80)
		n >>= 7
	}
	return append(dst, byte(n))
}
