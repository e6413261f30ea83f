package main

/*
#include <stdint.h>
#include <stddef.h>
*/
import "C"

import (
	"unsafe"

	"dalkit/native/internal/engine"
)

//export dal_exec
func dal_exec(handle C.int64_t, db *C.char, dbLen C.size_t, sql *C.char, sqlLen C.size_t) (ret C.int32_t) {
	defer func() {
		if r := recover(); r != nil {
			ret = C.int32_t(recovered(r, "dal_exec"))
		}
	}()
	h, err := engine.Lookup(int64(handle))
	if err != nil {
		return C.int32_t(fail(err))
	}
	if db == nil {
		setError(engine.ENull, "dal_exec: db is NULL")
		return C.int32_t(engine.ENull)
	}
	if sql == nil {
		setError(engine.ENull, "dal_exec: sql is NULL")
		return C.int32_t(engine.ENull)
	}
	// Sizes are checked before the memory is viewed as slices (a size_t may
	// not fit an int); the engine checks them against the handle's limits
	// (max_request_bytes is at most 1 GiB, a db name at most 247 bytes).
	const maxLen = 1 << 40
	if uint64(dbLen) > maxLen || uint64(sqlLen) > maxLen {
		setError(engine.ETooLarge, "dal_exec: db_len or sql_len is beyond any accepted size")
		return C.int32_t(engine.ETooLarge)
	}
	// The caller keeps both buffers alive for the call: no copy here.
	err = h.Exec(unsafe.Slice((*byte)(unsafe.Pointer(db)), int(dbLen)), unsafe.Slice((*byte)(unsafe.Pointer(sql)), int(sqlLen)))
	if err != nil {
		return C.int32_t(fail(err))
	}
	return C.int32_t(engine.OK)
}
