// Package main is a test fixture (not product code): a Go c-shared library
// (libgoleak.so) with the ownership rule of many real cgo bindings: a
// function returns a C string made with C.CString, and the caller must give
// it back with goleak_free.  A caller that forgets leaks one C.malloc block
// per call, charged to this library (tests/targets/goleak.mjs, docs/targets.md
// "Leak fixtures").
//
//	char   *goleak_label(int64_t i, int32_t size);  // "000…i": size bytes with the NUL; NULL on bad input
//	void   *goleak_reserve(int64_t size);           // size bytes, touched: a one-time step; NULL on bad input
//	void    goleak_free(void *p);                   // either of the above; NULL is fine
//	int64_t goleak_live(void);                      // blocks handed out and not freed
//
// Every exported function recovers a panic into its failure value: a Go panic
// must never unwind into the caller's runtime.
package main

/*
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
*/
import "C"

import (
	"strconv"
	"sync/atomic"
	"unsafe"
)

// Bounds of the sizes accepted: a fixture, not a memory hog.
const (
	maxLabel   = 1 << 20
	maxReserve = 1 << 34
)

var live atomic.Int64

// stackLabel is the longest label built without a Go heap allocation: the
// library's own garbage would grow the Go heap to its GC target, a rise the
// runs would have to tell from the caller's leak.
const stackLabel = 1024

// label writes i in decimal into out, zero-padded (or cut on the left) to
// len(out) digits.
func label(out []byte, i int64) {
	var d [20]byte
	digits := strconv.AppendInt(d[:0], i, 10)
	n := len(out)
	for k := range out {
		out[k] = '0'
	}
	if len(digits) > n {
		digits = digits[len(digits)-n:]
	}
	copy(out[n-len(digits):], digits)
}

//export goleak_label
func goleak_label(i C.int64_t, size C.int32_t) (p *C.char) {
	defer func() {
		if recover() != nil {
			p = nil
		}
	}()
	if size < 1 || size > maxLabel || i < 0 {
		return nil
	}
	var small [stackLabel]byte
	var text []byte
	if int(size)-1 <= len(small) {
		text = small[:size-1]
	} else {
		text = make([]byte, size-1)
	}
	label(text, int64(i))
	p = C.CString(unsafe.String(unsafe.SliceData(text), len(text)))
	live.Add(1)
	return p
}

//export goleak_reserve
func goleak_reserve(size C.int64_t) (p unsafe.Pointer) {
	defer func() {
		if recover() != nil {
			p = nil
		}
	}()
	if size < 1 || size > maxReserve {
		return nil
	}
	p = C.malloc(C.size_t(size))
	if p == nil {
		return nil
	}
	C.memset(p, 0xa5, C.size_t(size))
	live.Add(1)
	return p
}

//export goleak_free
func goleak_free(p unsafe.Pointer) {
	defer func() { _ = recover() }()
	if p == nil {
		return
	}
	C.free(p)
	live.Add(-1)
}

//export goleak_live
func goleak_live() (n C.int64_t) {
	defer func() {
		if recover() != nil {
			n = -1
		}
	}()
	return C.int64_t(live.Load())
}

func main() {}
