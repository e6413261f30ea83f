package main

/*
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tls.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"dalkit/native/internal/engine"
)

// query validates a request's handle and pointer and runs it without copying
// it (the caller keeps it alive for the call; the engine checks its size).
// On failure it records the error and returns its code.
func query(fn string, handle C.int64_t, req unsafe.Pointer, reqLen C.size_t) (engine.Response, engine.Code) {
	h, err := engine.Lookup(int64(handle))
	if err != nil {
		return engine.Response{}, fail(err)
	}
	if req == nil {
		setError(engine.ENull, fn+": req is NULL")
		return engine.Response{}, engine.ENull
	}
	r, err := h.QueryAt(req, uint64(reqLen))
	if err != nil {
		return engine.Response{}, fail(err)
	}
	return r, engine.OK
}

//export dal_query
func dal_query(handle C.int64_t, req unsafe.Pointer, reqLen C.size_t, resp *unsafe.Pointer) (ret C.int64_t) {
	defer func() {
		if r := recover(); r != nil {
			ret = C.int64_t(recovered(r, "dal_query"))
		}
	}()
	if resp == nil {
		setError(engine.ENull, "dal_query: resp is NULL")
		return C.int64_t(engine.ENull)
	}
	*resp = nil
	r, code := query("dal_query", handle, req, reqLen)
	if code != engine.OK {
		return C.int64_t(code)
	}
	defer r.Release()
	out := r.Bytes()
	p := C.dal__buf_copy(unsafe.Pointer(unsafe.SliceData(out)), C.size_t(len(out)))
	if p == nil {
		setError(engine.ENoMem, "dal_query: out of memory for the response")
		return C.int64_t(engine.ENoMem)
	}
	liveBuffers.add(p, len(out))
	*resp = p
	return C.int64_t(len(out))
}

//export dal_free
func dal_free(p unsafe.Pointer) (ret C.int32_t) {
	defer func() {
		if r := recover(); r != nil {
			ret = C.int32_t(recovered(r, "dal_free"))
		}
	}()
	if p == nil {
		return C.int32_t(engine.OK)
	}
	if !liveBuffers.remove(p) {
		setError(engine.EMisuse, fmt.Sprintf("dal_free: %p was not returned by dal_query, or was already freed; not freeing it", p))
		return C.int32_t(engine.EMisuse)
	}
	C.free(p)
	return C.int32_t(engine.OK)
}

//export dal_query_into
func dal_query_into(handle C.int64_t, req unsafe.Pointer, reqLen C.size_t, buf unsafe.Pointer, bufCap C.size_t) (ret C.int64_t) {
	defer func() {
		if r := recover(); r != nil {
			ret = C.int64_t(recovered(r, "dal_query_into"))
		}
	}()
	if buf == nil && bufCap > 0 {
		setError(engine.ENull, "dal_query_into: buf is NULL but buf_cap is not 0")
		return C.int64_t(engine.ENull)
	}
	r, code := query("dal_query_into", handle, req, reqLen)
	if code != engine.OK {
		return C.int64_t(code)
	}
	defer r.Release()
	out := r.Bytes()
	n := len(out)
	if uint64(n) <= uint64(bufCap) {
		// A plain Go copy into C memory: no cgo call on the hot path.
		copy(unsafe.Slice((*byte)(buf), n), out)
		return C.int64_t(n)
	}
	// Too small: the request has run, so its answer must not be lost.
	C.dal__set_pending(unsafe.Pointer(unsafe.SliceData(out)), C.size_t(n))
	if C.dal__pending_ok() == 0 {
		setError(engine.ENoMem, "dal_query_into: out of memory keeping the pending response")
		return C.int64_t(engine.ENoMem)
	}
	return C.int64_t(n)
}
