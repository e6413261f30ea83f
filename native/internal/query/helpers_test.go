package query

import (
	"encoding/hex"
	"fmt"
	"testing"

	"dalkit/native/internal/wire"
	"github.com/tinylib/msgp/msgp"
)

// M is an ordered map for building requests: key, value, key, value, ...
// (Go maps would shuffle keys, and key order is meaningful in the protocol).
type M []any

// A is an array.
type A []any

// Raw is pre-encoded MessagePack, spliced in as is.
type Raw []byte

// enc appends v with the msgp Append functions.
func enc(dst []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return msgp.AppendNil(dst)
	case bool:
		return msgp.AppendBool(dst, x)
	case int:
		return msgp.AppendInt64(dst, int64(x))
	case int64:
		return msgp.AppendInt64(dst, x)
	case uint64:
		return msgp.AppendUint64(dst, x)
	case float64:
		return msgp.AppendFloat64(dst, x)
	case string:
		return msgp.AppendString(dst, x)
	case []byte:
		return msgp.AppendBytes(dst, x)
	case Raw:
		return append(dst, x...)
	case A:
		dst = msgp.AppendArrayHeader(dst, uint32(len(x)))
		for _, e := range x {
			dst = enc(dst, e)
		}
		return dst
	case M:
		if len(x)%2 != 0 {
			panic("odd M")
		}
		dst = msgp.AppendMapHeader(dst, uint32(len(x)/2))
		for _, e := range x {
			dst = enc(dst, e)
		}
		return dst
	}
	panic(fmt.Sprintf("enc: unsupported %T", v))
}

// cmd is one command {method, args}.
func cmd(method string, args ...any) M { return M{"method", method, "args", A(args)} }

// request wraps commands in the envelope {id: 1, db: "t.db", commands}.
func request(cmds ...M) []byte {
	list := make(A, len(cmds))
	for i, c := range cmds {
		list[i] = c
	}
	return enc(nil, M{"id", 1, "db", "t.db", "commands", list})
}

// referenceHex is the 87-byte reference request of docs/protocol.md.
const referenceHex = "83a2696409a26462af64617461626173652e73716c697465a8636f6d6d616e64739282a66d6574686f64a2496ea46172677391a46461746182a66d6574686f64a446696e64a4617267739182a16101a16281a324677402"

func referenceBytes(t testing.TB) []byte {
	b, err := hex.DecodeString(referenceHex)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// build decodes and builds raw request bytes with fresh state.
func build(t testing.TB, raw []byte) (*Request, error) {
	t.Helper()
	var d wire.Decoder
	v, err := d.Decode(raw)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	var b Builder
	return b.Build(v)
}

// plain converts Args to comparable Go values.
func plain(args []wire.Value) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch a.Kind {
		case wire.Nil:
			out[i] = nil
		case wire.Bool:
			out[i] = a.Bool()
		case wire.Int:
			out[i] = a.Int()
		case wire.Uint:
			out[i] = a.Uint()
		case wire.Float:
			out[i] = a.Float()
		case wire.Str:
			out[i] = string(a.Bytes)
		case wire.Bin:
			out[i] = a.Bytes
		default:
			out[i] = fmt.Sprintf("<%s>", a.Kind)
		}
	}
	return out
}
