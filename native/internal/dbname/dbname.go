// Package dbname checks a request's "db" field against the name rules of
// docs/protocol.md. The rules are the protocol's, not a backend's: a name a
// SQLite data directory accepts is accepted by a PostgreSQL handle too
// (where it names a schema), so that a caller can move between backends
// without renaming anything. Each backend adds the checks of its own medium
// (the path length of a data directory, PostgreSQL's 63-byte identifiers).
package dbname

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"dalkit/native/internal/status"
)

// SideFileSuffixes are the files SQLite keeps next to a database. A request
// may not name one of them (it would open another database's journal), and a
// symlink planted under one of those names is refused like the database.
var SideFileSuffixes = []string{"-wal", "-shm", "-journal"}

// MaxBytes is the longest db name. A file name may have 255 bytes on
// Linux file systems (NAME_MAX), and SQLite names its side files by
// appending up to 8 bytes ("-journal") to the database's name, so a longer
// name would open but then fail on its WAL or journal with "file name too
// long" -- after the database file had been created.
const MaxBytes = 255 - len("-journal")

// Invalid is the error for a name that breaks a rule: DAL_E_REQUEST, naming
// the name and the rule.
func Invalid(name, why string) error {
	return status.Errorf(status.ERequest, fmt.Sprintf("invalid db name %q: %s", name, why))
}

// Validate checks a request's "db" field: a plain file name that cannot
// leave the data directory.
func Validate(nameBytes []byte) error {
	// A real copy into Go memory: this runs once per database name, and it
	// keeps Go's word-at-a-time string routines from reading past the end
	// of the caller's C buffer (harmless, but noise under Valgrind).
	name := string(nameBytes)
	bad := func(why string) error { return Invalid(name, why) }
	if len(name) == 0 || len(name) > MaxBytes {
		return bad(fmt.Sprintf("must be 1 to %d bytes, got %d (SQLite appends up to 8 bytes for its side files, and a file name has at most 255)", MaxBytes, len(name)))
	}
	if !utf8.ValidString(name) {
		return bad("not valid UTF-8")
	}
	for _, c := range []byte(name) {
		if c < 0x20 || c == 0x7f {
			return bad("control characters are not allowed")
		}
		if c == '/' || c == '\\' {
			return bad("path separators are not allowed; name a file inside the data directory")
		}
	}
	if name[0] == '.' {
		return bad(`names starting with "." (including "." and "..") are not allowed`)
	}
	if name[0] == ':' {
		return bad(`names starting with ":" are reserved by SQLite`)
	}
	for _, s := range SideFileSuffixes {
		if strings.HasSuffix(name, s) {
			return bad(fmt.Sprintf("names ending in %q are SQLite side files", s))
		}
	}
	return nil
}
