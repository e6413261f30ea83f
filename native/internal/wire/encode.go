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

// AppendRowsStart begins a rows response {i, c: [...], r: [...]}: it writes
// the id and the header of the column array; the caller appends ncol column
// names, then calls AppendRowsOpen.
func AppendRowsStart(dst []byte, id uint64, ncol int) []byte {
	dst = msgp.AppendMapHeader(dst, 3)
	dst = msgp.AppendString(dst, "i")
	dst = msgp.AppendUint64(dst, id)
	dst = msgp.AppendString(dst, "c")
	return msgp.AppendArrayHeader(dst, uint32(ncol))
}

// AppendRowsOpen writes the "r" key and reserves an array32 header, whose
// count PatchArrayHeader32 fills in once the rows have been stepped through
// (SQLite cannot say in advance how many rows a statement yields).
func AppendRowsOpen(dst []byte) (out []byte, countAt int) {
	dst = msgp.AppendString(dst, "r")
	countAt = len(dst)
	return append(dst, 0xdd, 0, 0, 0, 0), countAt
}

// PatchArrayHeader32 writes n into the array32 header reserved at off.
func PatchArrayHeader32(dst []byte, off int, n uint32) {
	dst[off+1] = byte(n >> 24)
	dst[off+2] = byte(n >> 16)
	dst[off+3] = byte(n >> 8)
	dst[off+4] = byte(n)
}

// AppendExecErrorCode appends an error response that also carries SQLite's
// extended result code, for requests that opted in with "codes":
// {i, ra: 0, li: 0, e, ec} in that order.
func AppendExecErrorCode(dst []byte, id uint64, errMsg []byte, code int) []byte {
	dst = msgp.AppendMapHeader(dst, 5)
	dst = msgp.AppendString(dst, "i")
	dst = msgp.AppendUint64(dst, id)
	dst = msgp.AppendString(dst, "ra")
	dst = msgp.AppendInt64(dst, 0)
	dst = msgp.AppendString(dst, "li")
	dst = msgp.AppendInt64(dst, 0)
	dst = msgp.AppendString(dst, "e")
	dst = msgp.AppendStringFromBytes(dst, errMsg)
	dst = msgp.AppendString(dst, "ec")
	return msgp.AppendInt(dst, code)
}
