package wire

import "github.com/tinylib/msgp/msgp"

// Response map headers and keys as the bytes msgp.AppendMapHeader and
// msgp.AppendString write for them (fixmap, fixstr), appended whole: a
// response is a handful of these, and each msgp call checks capacity.
const (
	fixmap = 0x80 // | the number of entries, below 16
	keyI   = "\xa1i"
	keyRA  = "\xa2ra"
	keyLI  = "\xa2li"
	keyE   = "\xa1e"
	keyEC  = "\xa2ec"
	keyC   = "\xa1c"
)

// AppendExecResult appends the response for an error or for a statement that
// returns no rows: {i, ra, li[, e]} in that order, e only when non-empty
// (docs/protocol.md).
func AppendExecResult(dst []byte, id uint64, rowsAffected, lastInsertID int64, errMsg []byte) []byte {
	n := byte(3)
	if len(errMsg) > 0 {
		n = 4
	}
	dst = append(append(dst, fixmap|n), keyI...)
	dst = msgp.AppendUint64(dst, id)
	dst = msgp.AppendInt64(append(dst, keyRA...), rowsAffected)
	dst = msgp.AppendInt64(append(dst, keyLI...), lastInsertID)
	if n == 4 {
		dst = msgp.AppendStringFromBytes(append(dst, keyE...), errMsg)
	}
	return dst
}

// AppendRowsStart begins a rows response {i, c: [...], r: [...]}: it writes
// the map header, the id and the "c" key. The rest -- the column names, "r"
// and the rows -- is encoded in C while the statement is stepped
// (internal/sqlite, rows.h), with the same msgp forms as here.
func AppendRowsStart(dst []byte, id uint64) []byte {
	dst = msgp.AppendUint64(append(append(dst, fixmap|3), keyI...), id)
	return append(dst, keyC...)
}

// AppendExecErrorCode appends an error response that also carries SQLite's
// extended result code, for requests that opted in with "codes":
// {i, ra: 0, li: 0, e, ec} in that order.
func AppendExecErrorCode(dst []byte, id uint64, errMsg []byte, code int) []byte {
	return msgp.AppendInt(appendExecErrorUpToCode(dst, id, errMsg), code)
}

// appendExecErrorUpToCode appends {i, ra: 0, li: 0, e, and the key "ec"},
// the part the two coded error responses share; the caller appends ec.
func appendExecErrorUpToCode(dst []byte, id uint64, errMsg []byte) []byte {
	dst = msgp.AppendUint64(append(append(dst, fixmap|5), keyI...), id)
	dst = append(append(dst, keyRA+"\x00"...), keyLI+"\x00"...) // ra: 0, li: 0
	return append(msgp.AppendStringFromBytes(append(dst, keyE...), errMsg), keyEC...)
}

// AppendExecErrorState appends an error response of the PostgreSQL backend
// for a request that asked for "codes": {i, ra: 0, li: 0, e, ec} with ec
// the server's SQLSTATE, a 5-character string such as "23505"
// (docs/protocol.md, "On PostgreSQL").
func AppendExecErrorState(dst []byte, id uint64, errMsg []byte, state string) []byte {
	return msgp.AppendString(appendExecErrorUpToCode(dst, id, errMsg), state)
}
