package wire

import (
	"bytes"
	"testing"

	"github.com/tinylib/msgp/msgp"
)

// The encoders write their headers and keys as literal bytes; these are the
// responses spelt out with msgp's own calls, which they must equal byte for
// byte (docs/protocol.md's forms).
func msgpExecResult(id uint64, ra, li int64, e []byte) []byte {
	n := uint32(3)
	if len(e) > 0 {
		n = 4
	}
	b := msgp.AppendMapHeader(nil, n)
	b = msgp.AppendUint64(msgp.AppendString(b, "i"), id)
	b = msgp.AppendInt64(msgp.AppendString(b, "ra"), ra)
	b = msgp.AppendInt64(msgp.AppendString(b, "li"), li)
	if n == 4 {
		b = msgp.AppendStringFromBytes(msgp.AppendString(b, "e"), e)
	}
	return b
}

func msgpErrorUpToCode(id uint64, e []byte) []byte {
	b := msgp.AppendMapHeader(nil, 5)
	b = msgp.AppendUint64(msgp.AppendString(b, "i"), id)
	b = msgp.AppendInt64(msgp.AppendString(b, "ra"), 0)
	b = msgp.AppendInt64(msgp.AppendString(b, "li"), 0)
	b = msgp.AppendStringFromBytes(msgp.AppendString(b, "e"), e)
	return msgp.AppendString(b, "ec")
}

func TestEncodersMatchMsgp(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 300) // str16, beyond fixstr and str8
	for _, id := range []uint64{0, 9, 127, 128, 1 << 20, 1<<64 - 1} {
		for _, e := range [][]byte{nil, []byte("no such table: data"), long} {
			for _, n := range []int64{0, 1, -1, 1 << 40} {
				if got, want := AppendExecResult(nil, id, n, -n, e), msgpExecResult(id, n, -n, e); !bytes.Equal(got, want) {
					t.Errorf("AppendExecResult(%d, %d, %d, %q):\n got %x\nwant %x", id, n, -n, e, got, want)
				}
			}
			for _, code := range []int{0, 19, 2067, -1} {
				if got, want := AppendExecErrorCode(nil, id, e, code), msgp.AppendInt(msgpErrorUpToCode(id, e), code); !bytes.Equal(got, want) {
					t.Errorf("AppendExecErrorCode(%d, %q, %d):\n got %x\nwant %x", id, e, code, got, want)
				}
			}
			if got, want := AppendExecErrorState(nil, id, e, "23505"), msgp.AppendString(msgpErrorUpToCode(id, e), "23505"); !bytes.Equal(got, want) {
				t.Errorf("AppendExecErrorState(%d, %q):\n got %x\nwant %x", id, e, got, want)
			}
		}
		want := msgp.AppendString(msgp.AppendUint64(msgp.AppendString(msgp.AppendMapHeader(nil, 3), "i"), id), "c")
		if got := AppendRowsStart([]byte("prefix"), id); !bytes.Equal(got, append([]byte("prefix"), want...)) {
			t.Errorf("AppendRowsStart(%d):\n got %x\nwant prefix+%x", id, got, want)
		}
	}
}
