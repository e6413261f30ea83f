// Package engine executes DAL requests: it owns handles and turns a request
// into response bytes on the handle's backend (backend.go: SQLite files in
// a data directory, or a PostgreSQL server). The cgo exports in package main
// are thin wrappers around it.
package engine

import "dalkit/native/internal/status"

// Code and Error are the dal.h result codes and the failed call
// (internal/status), under the names the exports and tests use.
type (
	Code  = status.Code
	Error = status.Error
)

const (
	OK        = status.OK
	EHandle   = status.EHandle
	ENull     = status.ENull
	EDecode   = status.EDecode
	ETooLarge = status.ETooLarge
	ERequest  = status.ERequest
	EDatabase = status.EDatabase
	EMisuse   = status.EMisuse
	EInternal = status.EInternal
	ENoMem    = status.ENoMem
	EOptions  = status.EOptions
	ELimit    = status.ELimit
)

func errorf(code Code, msg string) *Error { return status.Errorf(code, msg) }
