package wire

import (
	"strings"
	"testing"

	"github.com/tinylib/msgp/msgp"
)

func TestDecodeKeepsMapOrderAndTypes(t *testing.T) {
	b := msgp.AppendMapHeader(nil, 7)
	b = msgp.AppendString(b, "z")
	b = msgp.AppendInt64(b, -5)
	b = msgp.AppendString(b, "a")
	b = msgp.AppendUint64(b, 1<<63) // beyond int64
	b = msgp.AppendString(b, "f")
	b = msgp.AppendFloat32(b, 1.5)
	b = msgp.AppendString(b, "n")
	b = msgp.AppendNil(b)
	b = msgp.AppendString(b, "t")
	b = msgp.AppendBool(b, true)
	b = msgp.AppendString(b, "bin")
	b = msgp.AppendBytes(b, []byte{0, 1})
	b = msgp.AppendString(b, "arr")
	b = msgp.AppendArrayHeader(b, 2)
	b = msgp.AppendString(b, "x")
	b = msgp.AppendUint8(b, 7)

	var d Decoder
	v, err := d.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{}
	for i := 0; i < v.Len(); i++ {
		keys = append(keys, string(v.Key(i).Bytes))
	}
	if strings.Join(keys, ",") != "z,a,f,n,t,bin,arr" {
		t.Fatalf("map order lost: %v", keys)
	}
	if v.Val(0).Kind != Int || v.Val(0).Int() != -5 {
		t.Error("int")
	}
	if v.Val(1).Kind != Uint || v.Val(1).Uint() != 1<<63 {
		t.Error("uint")
	}
	if v.Val(2).Kind != Float || v.Val(2).Float() != 1.5 {
		t.Error("float32 widened")
	}
	if v.Val(3).Kind != Nil || v.Val(4).Kind != Bool || !v.Val(4).Bool() || v.Val(5).Kind != Bin {
		t.Error("nil/bool/bin")
	}
	arr := v.Val(6)
	if arr.Kind != Array || arr.Len() != 2 || arr.Items[1].Kind != Int || arr.Items[1].Int() != 7 {
		t.Errorf("array: %+v", arr)
	}
	if got, ok := v.Get("f"); !ok || got.Float() != 1.5 {
		t.Error("Get")
	}
}

func TestDecodeRejectsMalformedInput(t *testing.T) {
	deep := make([]byte, 0, 100)
	for i := 0; i < MaxDepth+2; i++ {
		deep = append(deep, 0x91)
	}
	deep = append(deep, 0x01)
	cases := map[string][]byte{
		"empty":           {},
		"truncated str":   {0xa5, 'a', 'b'},
		"truncated map":   {0x82, 0xa1, 'a'},
		"trailing":        {0x01, 0x02},
		"never used byte": {0xc1},
		"huge array":      {0xdd, 0xff, 0xff, 0xff, 0xff},
		"huge map":        {0xdf, 0x7f, 0xff, 0xff, 0xff, 0x01},
		"extension":       {0xd4, 0x01, 0x00},
		"too deep":        deep,
	}
	for name, b := range cases {
		var d Decoder
		if _, err := d.Decode(b); err == nil {
			t.Errorf("%s: accepted", name)
		} else if _, ok := err.(*DecodeError); !ok {
			t.Errorf("%s: error %T, want *DecodeError", name, err)
		}
	}
}

func TestDecoderReuseDoesNotLeakPreviousTree(t *testing.T) {
	var d Decoder
	big := msgp.AppendArrayHeader(nil, 300) // spans several chunks
	for i := 0; i < 300; i++ {
		big = msgp.AppendInt64(big, int64(i))
	}
	if _, err := d.Decode(big); err != nil {
		t.Fatal(err)
	}
	d.Reset()
	small := msgp.AppendArrayHeader(nil, 1)
	small = msgp.AppendString(small, "only")
	v, err := d.Decode(small)
	if err != nil || v.Len() != 1 || string(v.Items[0].Bytes) != "only" {
		t.Fatalf("reuse: %+v %v", v, err)
	}
	if allocs := testing.AllocsPerRun(100, func() { d.Reset(); d.Decode(small) }); allocs != 0 {
		t.Errorf("steady-state decode allocates %.0f times", allocs)
	}
}

func TestAppendExecResultMatchesReference(t *testing.T) {
	got := AppendExecResult(nil, 9, 0, 0, []byte("no such table: data"))
	want := "\x84\xa1i\x09\xa2ra\x00\xa2li\x00\xa1e\xb3no such table: data"
	if string(got) != want || len(got) != 34 {
		t.Fatalf("got %q", got)
	}
	ok := AppendExecResult(nil, 1, 2, 3, nil)
	v, _, err := msgp.ReadIntfBytes(ok)
	if err != nil || len(v.(map[string]any)) != 3 {
		t.Fatalf("success form must omit e: %v %v", v, err)
	}
}
