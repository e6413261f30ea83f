package query

import (
	"testing"

	"dalkit/native/internal/wire"
)

// BenchmarkBuildReference decodes and builds the reference request with a
// reused Decoder and Builder, as the engine does with pooled ones.
func BenchmarkBuildReference(b *testing.B) {
	raw := referenceBytes(b)
	var d wire.Decoder
	var bl Builder
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		d.Reset()
		v, err := d.Decode(raw)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := bl.Build(v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildSelect covers a larger query (join, group, sort, limit).
func BenchmarkBuildSelect(b *testing.B) {
	raw := seeds()["select"]
	var d wire.Decoder
	var bl Builder
	b.ReportAllocs()
	for b.Loop() {
		d.Reset()
		v, _ := d.Decode(raw)
		if _, err := bl.Build(v); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBuildAllocs pins the zero-allocation goal for every seed after warm-up.
func TestBuildAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip()
	}
	for name, raw := range seeds() {
		var d wire.Decoder
		var bl Builder
		n := testing.AllocsPerRun(100, func() {
			d.Reset()
			v, _ := d.Decode(raw)
			if _, err := bl.Build(v); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("%s: %v allocs per build", name, n)
		}
	}
}
