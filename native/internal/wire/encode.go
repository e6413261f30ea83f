package wire

import "github.com/tinylib/msgp/msgp"

// AppendExecResult appends the response for an error or for a statement that
// returns no rows: {i, ra, li[, e]} in that order, e only when non-empty
// (docs/protocol.md).
func AppendExecResult(dst []byte, id uint64, rowsAffected, lastInsertID int64, errMsg []byte) []byte {
	n := uint32(3)
	if len(errMsg) > 0 {
		n = 4
	}
	dst = msgp.AppendMapHeader(dst, n)
	dst = msgp.AppendString(dst, "i")
	dst = msgp.AppendUint64(dst, id)
	dst = msgp.AppendString(dst, "ra")
	dst = msgp.AppendInt64(dst, rowsAffected)
	dst = msgp.AppendString(dst, "li")
	dst = msgp.AppendInt64(dst, lastInsertID)
	if n == 4 {
		dst = msgp.AppendString(dst, "e")
		dst = msgp.AppendStringFromBytes(dst, errMsg)
	}
	return dst
}

// AppendRowsHeader starts a rows response: {i, c: [columns], r: [ ... and
// leaves the row array open; the caller appends rows with the msgp Append
// functions and patches the row count with PatchArrayHeader32.
func AppendRowsHeader(dst []byte, id uint64, columns [][]byte) (out []byte, rowCountAt int) {
	dst = msgp.AppendMapHeader(dst, 3)
	dst = msgp.AppendString(dst, "i")
	dst = msgp.AppendUint64(dst, id)
	dst = msgp.AppendString(dst, "c")
	dst = msgp.AppendArrayHeader(dst, uint32(len(columns)))
	for _, c := range columns {
		dst = msgp.AppendStringFromBytes(dst, c)
	}
	dst = msgp.AppendString(dst, "r")
	// array32 header (0xdd + 4 bytes) so the count can be written once known.
	rowCountAt = len(dst)
	dst = append(dst, 0xdd, 0, 0, 0, 0)
	return dst, rowCountAt
}

// PatchArrayHeader32 writes n into the array32 header reserved at off.
func PatchArrayHeader32(dst []byte, off int, n uint32) {
	dst[off+1] = byte(n >> 24)
	dst[off+2] = byte(n >> 16)
	dst[off+3] = byte(n >> 8)
	dst[off+4] = byte(n)
}
