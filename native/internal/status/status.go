// Package status holds the DAL's call results: the dal.h result codes and
// the error that carries one with its message. It sits below the engine and
// both backends, so that a backend in its own package (internal/postgres)
// fails a call with the same codes the engine does.
package status

/*
#cgo CFLAGS: -I${SRCDIR}/../../include
#include "dal.h"
*/
import "C"

// Code is a dal.h result code (DAL_E_*). The values come from dal.h itself,
// so the header is the one place where a number is written.
type Code int32

const (
	OK        Code = C.DAL_OK
	EHandle   Code = C.DAL_E_HANDLE
	ENull     Code = C.DAL_E_NULL
	EDecode   Code = C.DAL_E_DECODE
	ETooLarge Code = C.DAL_E_TOO_LARGE
	ERequest  Code = C.DAL_E_REQUEST
	EDatabase Code = C.DAL_E_DATABASE
	EMisuse   Code = C.DAL_E_MISUSE
	EInternal Code = C.DAL_E_INTERNAL
	ENoMem    Code = C.DAL_E_NOMEM
	EOptions  Code = C.DAL_E_OPTIONS
	ELimit    Code = C.DAL_E_LIMIT
)

// Error is a failed call: a dal.h code and the message dal_last_error shows.
type Error struct {
	Code Code
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Errorf returns an *Error with code and msg.
func Errorf(code Code, msg string) *Error { return &Error{Code: code, Msg: msg} }
