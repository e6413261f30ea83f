package engine

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"unicode/utf8"
)

// sideFileSuffixes are the files SQLite keeps next to a database. A request
// may not name one of them (it would open another database's journal), and a
// symlink planted under one of those names is refused like the database.
var sideFileSuffixes = []string{"-wal", "-shm", "-journal"}

// MaxDBNameBytes is the longest db name. A file name may have 255 bytes on
// Linux file systems (NAME_MAX), and SQLite names its side files by
// appending up to 8 bytes ("-journal") to the database's name, so a longer
// name would open but then fail on its WAL or journal with "file name too
// long" -- after the database file had been created.
const MaxDBNameBytes = 255 - len("-journal")

// maxPathBytes is the longest database path SQLite's unix VFS opens: its
// path buffers are MAX_PATHNAME (512) bytes, and the journal's name, 8 bytes
// longer, must fit too. Measured: 504 bytes open, 505 fail with "unable to
// open database file".
const maxPathBytes = 512 - len("-journal")

// validateDBName checks a request's "db" field against docs/protocol.md: a
// plain file name that cannot leave the data directory.
func validateDBName(nameBytes []byte) error {
	// A real copy into Go memory: this runs once per database name, and it
	// keeps Go's word-at-a-time string routines from reading past the end
	// of the caller's C buffer (harmless, but noise under Valgrind).
	name := string(nameBytes)
	bad := func(why string) error {
		return errorf(ERequest, fmt.Sprintf("invalid db name %q: %s", name, why))
	}
	if len(name) == 0 || len(name) > MaxDBNameBytes {
		return bad(fmt.Sprintf("must be 1 to %d bytes, got %d (SQLite appends up to 8 bytes for its side files, and a file name has at most 255)", MaxDBNameBytes, len(name)))
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
	for _, s := range sideFileSuffixes {
		if strings.HasSuffix(name, s) {
			return bad(fmt.Sprintf("names ending in %q are SQLite side files", s))
		}
	}
	return nil
}

// checkPathLength refuses a name that is valid on its own but, inside this
// data directory, makes a path longer than SQLite accepts.
func checkPathLength(path string) error {
	if len(path) > maxPathBytes {
		return errorf(ERequest, fmt.Sprintf("db name too long for this data directory: the database path would be %d bytes, SQLite opens at most %d", len(path), maxPathBytes))
	}
	return nil
}

// checkNoSymlinks refuses a database whose file or side files are symbolic
// links (or anything but regular files): a link would let a request reach
// outside the data directory. SQLITE_OPEN_NOFOLLOW covers the main file at
// open time as a second line of defence.
func checkNoSymlinks(path string) error {
	for _, p := range append([]string{path}, path+sideFileSuffixes[0], path+sideFileSuffixes[1], path+sideFileSuffixes[2]) {
		fi, err := os.Lstat(p)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			if errors.Is(err, syscall.ENAMETOOLONG) {
				// A file system with a NAME_MAX below 255: still the name's fault.
				return errorf(ERequest, fmt.Sprintf("db name too long for this file system: %s: %v", p, err))
			}
			return errorf(EDatabase, fmt.Sprintf("cannot inspect %s: %v", p, err))
		}
		if !fi.Mode().IsRegular() {
			return errorf(ERequest, fmt.Sprintf("refusing %s: not a regular file (symbolic links and devices are not followed)", p))
		}
	}
	return nil
}
