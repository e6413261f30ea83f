// Package engine executes DAL requests: it owns handles, the per-database
// connection pools and statement caches, and turns a request into response
// bytes. The cgo exports in package main are thin wrappers around it.
package engine

// Code is a dal.h result code (DAL_E_*).
type Code int32

const (
	OK        Code = 0
	EHandle   Code = -1
	ENull     Code = -2
	EDecode   Code = -3
	ETooLarge Code = -4
	ERequest  Code = -5
	EDatabase Code = -6
	EMisuse   Code = -7
	EInternal Code = -8
	ENoMem    Code = -9
	EOptions  Code = -10
)

// Error is a failed call: a dal.h code and the message dal_last_error shows.
type Error struct {
	Code Code
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

func errorf(code Code, msg string) *Error { return &Error{Code: code, Msg: msg} }
