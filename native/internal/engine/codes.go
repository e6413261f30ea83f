// Package engine executes DAL requests: it owns handles, the per-database
// connection pools and statement caches, and turns a request into response
// bytes. The cgo exports in package main are thin wrappers around it.
package engine

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

func errorf(code Code, msg string) *Error { return &Error{Code: code, Msg: msg} }
