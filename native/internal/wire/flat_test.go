package wire

import (
	"bytes"
	"math"
	"testing"

	"github.com/tinylib/msgp/msgp"
)

// ScalarLen, from the header alone, must give the length ReadScalar reads,
// for every scalar form, and 0 where ReadScalar refuses for want of a whole
// scalar.
func TestScalarLenMatchesReadScalar(t *testing.T) {
	var scalars [][]byte
	for _, i := range []int64{0, 1, 127, 128, 255, 256, 65535, 65536, math.MaxInt32, math.MaxInt32 + 1, math.MaxInt64,
		-1, -32, -33, -128, -129, -32768, -32769, math.MinInt32, math.MinInt32 - 1, math.MinInt64} {
		scalars = append(scalars, msgp.AppendInt64(nil, i))
	}
	for _, u := range []uint64{200, 60000, 1 << 31, 1 << 40, math.MaxUint64} {
		scalars = append(scalars, msgp.AppendUint64(nil, u))
	}
	for _, n := range []int{0, 1, 31, 32, 255, 256, 65535, 65536} {
		s := bytes.Repeat([]byte("a"), n)
		scalars = append(scalars, msgp.AppendStringFromBytes(nil, s), msgp.AppendBytes(nil, s))
	}
	scalars = append(scalars, msgp.AppendNil(nil), msgp.AppendBool(nil, true), msgp.AppendBool(nil, false),
		msgp.AppendFloat32(nil, 1.5), msgp.AppendFloat64(nil, 2.5))
	for _, b := range scalars {
		var v Value
		want := ReadScalar(b, len(b), &v)
		if want != len(b) {
			t.Fatalf("ReadScalar(%x) = %d, want %d", b[:min(len(b), 8)], want, len(b))
		}
		if got := ScalarLen(append(b[:len(b):len(b)], 0x01)); got != want {
			t.Errorf("ScalarLen(%x...) = %d, want %d", b[:min(len(b), 8)], got, want)
		}
		if got := ScalarLen(b[:len(b)-1]); got != 0 {
			t.Errorf("ScalarLen of %x truncated = %d, want 0", b[:min(len(b), 8)], got)
		}
	}
	for _, b := range [][]byte{nil, {0x90}, {0x80}, {0xdc, 0, 1, 1}, {0xd4, 1, 1}, {0xc1}} {
		if got := ScalarLen(b); got != 0 {
			t.Errorf("ScalarLen(%x) = %d, want 0 (not a scalar)", b, got)
		}
	}
}
