package main

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include "tls.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"dalkit/native/internal/engine"
)

// fail records err as this thread's last error and returns its code.
func fail(err error) engine.Code {
	var e *engine.Error
	if !errors.As(err, &e) {
		e = &engine.Error{Code: engine.EInternal, Msg: err.Error()}
	}
	setError(e.Code, e.Msg)
	return e.Code
}

// setError records code and msg as this thread's last error. Go copies the
// message into the thread's C buffer, rather than handing C a pointer into
// the Go heap to read from.
func setError(code engine.Code, msg string) {
	n := C.size_t(len(msg))
	p := C.dal__error_buffer(C.int32_t(code), &n)
	if p != nil {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n)), msg)
	}
}

// recovered converts a panic that reached an export into DAL_E_INTERNAL.
// A panic that escaped would abort the whole host process (Node, Bun...),
// so every export defers this. It must be called directly by the deferred
// function literal for recover() to work.
func recovered(r any, fn string) engine.Code {
	buf := make([]byte, 2048)
	buf = buf[:runtime.Stack(buf, false)]
	setError(engine.EInternal, fmt.Sprintf("%s: internal error (recovered panic): %v\n%s", fn, r, buf))
	return engine.EInternal
}
