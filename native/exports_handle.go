package main

/*
#include <stdint.h>
#include "tls.h"
*/
import "C"

import (
	"dalkit/native/internal/engine"
)

//export dal_open
func dal_open(dataDir *C.char, options *C.char) (ret C.int64_t) {
	defer func() {
		if r := recover(); r != nil {
			ret = C.int64_t(recovered(r, "dal_open"))
		}
	}()
	if dataDir == nil {
		setError(engine.ENull, "dal_open: data_dir is NULL")
		return C.int64_t(engine.ENull)
	}
	opts := ""
	if options != nil {
		opts = C.GoString(options)
	}
	h, err := engine.Open(C.GoString(dataDir), opts)
	if err != nil {
		return C.int64_t(fail(err))
	}
	return C.int64_t(h)
}

//export dal_close
func dal_close(handle C.int64_t) (ret C.int32_t) {
	defer func() {
		if r := recover(); r != nil {
			ret = C.int32_t(recovered(r, "dal_close"))
		}
	}()
	if err := engine.Close(int64(handle)); err != nil {
		return C.int32_t(fail(err))
	}
	return C.int32_t(engine.OK)
}
