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
// the map header, the id and the "c" key. The rest -- the column names, "r"
// and the rows -- is encoded in C while the statement is stepped
// (internal/sqlite, rows.h), with the same msgp forms as here.
func AppendRowsStart(dst []byte, id uint64) []byte {
	dst = msgp.AppendMapHeader(dst, 3)
	dst = msgp.AppendString(dst, "i")
	dst = msgp.AppendUint64(dst, id)
	return msgp.AppendString(dst, "c")
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
	dst = msgp.AppendMapHeader(dst, 5)
	dst = msgp.AppendString(dst, "i")
	dst = msgp.AppendUint64(dst, id)
	dst = msgp.AppendString(dst, "ra")
	dst = msgp.AppendInt64(dst, 0)
	dst = msgp.AppendString(dst, "li")
	dst = msgp.AppendInt64(dst, 0)
	dst = msgp.AppendString(dst, "e")
	dst = msgp.AppendStringFromBytes(dst, errMsg)
	return msgp.AppendString(dst, "ec")
}

// AppendExecErrorState appends an error response of the PostgreSQL backend
// for a request that asked for "codes": {i, ra: 0, li: 0, e, ec} with ec
// the server's SQLSTATE, a 5-character string such as "23505"
// (docs/protocol.md, "On PostgreSQL").
func AppendExecErrorState(dst []byte, id uint64, errMsg []byte, state string) []byte {
	return msgp.AppendString(appendExecErrorUpToCode(dst, id, errMsg), state)
}
