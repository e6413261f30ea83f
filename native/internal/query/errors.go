package query

import (
	"fmt"
	"strconv"
)

// Error is an invalid request: an unknown method, operator or key, an
// argument of the wrong type, a bad identifier or a request over a limit.
// The engine maps it to DAL_E_REQUEST. Messages name the offending thing and
// list what is valid, because the caller usually fixes the query by reading it.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// errorf builds an *Error. Only failure paths call it, so its allocations do
// not count against the zero-allocation goal of the success path.
func errorf(format string, a ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, a...)}
}

// prefix adds context ("Tx: command list 2: ", "column \"a\": ") to an error
// raised deeper down, so that the message still locates the offender.
func prefix(err error, format string, a ...any) error {
	if e, ok := err.(*Error); ok {
		return &Error{Msg: fmt.Sprintf(format, a...) + e.Msg}
	}
	return err
}

// maxQuoted caps how much of an offending name is echoed, so that a hostile
// megabyte-long key does not become a megabyte-long error message.
const maxQuoted = 64

// q quotes request bytes for a message: Go-escaped (NUL, control characters,
// invalid UTF-8 and quotes become visible escapes) and truncated.
func q(b []byte) string {
	if len(b) > maxQuoted {
		return strconv.Quote(string(b[:maxQuoted])) + "..."
	}
	return strconv.Quote(string(b))
}
