package engine

import (
	"fmt"
	"os"
	"strings"
	"unicode/utf8"
)

// sideFileSuffixes are the files SQLite keeps next to a database. A request
// may not name one of them (it would open another database's journal), and a
// symlink planted under one of those names is refused like the database.
var sideFileSuffixes = []string{"-wal", "-shm", "-journal"}

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
	if len(name) == 0 || len(name) > 255 {
		return bad("must be 1 to 255 bytes")
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
			return errorf(EDatabase, fmt.Sprintf("cannot inspect %s: %v", p, err))
		}
		if !fi.Mode().IsRegular() {
			return errorf(ERequest, fmt.Sprintf("refusing %s: not a regular file (symbolic links and devices are not followed)", p))
		}
	}
	return nil
}
