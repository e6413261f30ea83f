package engine

import (
	"sync"

	"dalkit/native/internal/query"
	"dalkit/native/internal/wire"
)

// scratch is the per-call working set: decoder, builder and response
// buffer, pooled so the steady state of a query allocates nothing in Go.
type scratch struct {
	dec wire.Decoder
	b   query.Builder
	out []byte
}

// maxPooledResponse bounds the response buffer a pooled scratch keeps: one
// huge result must not pin its memory for the life of the process.
const maxPooledResponse = 1 << 20

var scratchPool = sync.Pool{New: func() any { return &scratch{out: make([]byte, 0, 512)} }}

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

func putScratch(s *scratch) {
	s.dec.Reset()
	s.b.Reset() // drop references into the request buffer
	if cap(s.out) > maxPooledResponse {
		s.out = make([]byte, 0, 512)
	}
	s.out = s.out[:0]
	scratchPool.Put(s)
}
