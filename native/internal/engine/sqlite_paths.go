package engine

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"dalkit/native/internal/dbname"
)

// MaxDBNameBytes is the longest db name (internal/dbname).
const MaxDBNameBytes = dbname.MaxBytes

// maxPathBytes is the longest database path SQLite's unix VFS opens: its
// path buffers are MAX_PATHNAME (512) bytes, and the journal's name, 8 bytes
// longer, must fit too. Measured: 504 bytes open, 505 fail with "unable to
// open database file".
const maxPathBytes = 512 - len("-journal")

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
	for _, p := range append([]string{path}, path+dbname.SideFileSuffixes[0], path+dbname.SideFileSuffixes[1], path+dbname.SideFileSuffixes[2]) {
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
