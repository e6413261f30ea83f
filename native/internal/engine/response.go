package engine

import (
	"sync"

	"dalkit/native/internal/query"
	"dalkit/native/internal/wire"
)

// callState is the working set of one Query call: decoder, builder and
// response buffer, pooled so the steady state of a query allocates nothing
// in Go. A Response holds it until the caller has copied the bytes out.
type callState struct {
	dec wire.Decoder
	b   query.Builder
	out []byte
}

// maxPooledResponse bounds the response buffer a pooled callState keeps: one
// huge result must not pin its memory for the life of the process.
const maxPooledResponse = 1 << 20

var callStates = sync.Pool{New: func() any { return &callState{out: make([]byte, 0, 512)} }}

func getCallState() *callState { return callStates.Get().(*callState) }

func putCallState(s *callState) {
	s.dec.Reset()
	s.b.Reset() // drop references into the request buffer
	if cap(s.out) > maxPooledResponse {
		s.out = make([]byte, 0, 512)
	}
	s.out = s.out[:0]
	callStates.Put(s)
}

// Response is a query's answer, held in a pooled buffer: read Bytes, then
// Release it exactly once.
type Response struct{ cs *callState }

// Bytes is the MessagePack response; valid until Release.
func (r Response) Bytes() []byte { return r.cs.out }

// Release returns the buffer to the pool.
func (r Response) Release() { putCallState(r.cs) }
