package engine

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"dalkit/native/internal/query"
	"dalkit/native/internal/wire"
)

// The run pipeline of one request: size check, decode, build, the
// backend's Run, planted leak.

// Query executes one request held in Go memory. The request is pinned for
// the call: its text and blob values are handed to C as addresses in C
// memory (sqlite.Params), which cgo allows only for pinned Go memory.
func (h *Handle) Query(req []byte) (Response, error) {
	var pin runtime.Pinner
	defer pin.Unpin()
	if len(req) > 0 {
		pin.Pin(unsafe.SliceData(req))
	}
	return h.QueryAt(unsafe.Pointer(unsafe.SliceData(req)), uint64(len(req)))
}

// QueryAt executes the n-byte request at p, which the caller keeps alive for
// the call (the C ABI passes the caller's C buffer, without copying). The
// size is checked here, once, before the memory is viewed as a slice: a
// size_t may not even fit an int.
func (h *Handle) QueryAt(p unsafe.Pointer, n uint64) (Response, error) {
	h.life.RLock()
	defer h.life.RUnlock()
	if h.closed {
		return Response{}, errorf(EHandle, "handle is closed")
	}
	if n > uint64(h.opts.MaxRequestBytes) {
		return Response{}, errorf(ETooLarge, fmt.Sprintf("request of %d bytes exceeds max_request_bytes=%d", n, h.opts.MaxRequestBytes))
	}
	cs := getCallState()
	if err := h.run(cs, unsafe.Slice((*byte)(p), int(n))); err != nil {
		putCallState(cs)
		return Response{}, err
	}
	return Response{cs: cs}, nil
}

func (h *Handle) run(cs *callState, req []byte) error {
	cs.b.SetDialect(h.be.Dialect())
	r, err := cs.build(req)
	if err != nil {
		return err
	}
	out, err := h.be.Run(r, cs.out[:0])
	cs.out = out
	if err != nil {
		return err
	}
	queriesDone.Add(1)
	if h.plant != nil {
		h.plant.PerQuery(plantTarget{be: h.be, db: r.DB})
	}
	return nil
}

// build turns the request into statements: from the shape cache when a
// request of the same shape was built before (query/shapes.go), else by
// decoding and building it, and remembering its shape.
func (cs *callState) build(req []byte) (*query.Request, error) {
	if r, ok := cs.b.Cached(req); ok {
		return r, nil
	}
	v, err := cs.dec.Decode(req)
	if err != nil {
		var ue *wire.UTF8Error
		if errors.As(err, &ue) {
			return nil, errorf(ERequest, ue.Error())
		}
		return nil, errorf(EDecode, err.Error())
	}
	r, err := cs.b.Build(v)
	if err != nil {
		var qe *query.Error
		if errors.As(err, &qe) {
			return nil, errorf(ERequest, qe.Msg)
		}
		return nil, err
	}
	cs.b.Remember(req, r)
	return r, nil
}
