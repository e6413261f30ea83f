/* The rows part of a rows response, encoded in C: one cgo call per query
** instead of a step plus a type and a value call per column per row.
**
** dal_sqlite_rows() steps a bound statement and appends, in MessagePack,
** exactly what the Go encoder (msgp) would: the column-name array, the "r"
** key, an array32 header, and one array per row (INTEGER as the smallest
** signed form, REAL as float64, TEXT as str, BLOB as bin, NULL as nil),
** then fills in the row count.  The caller owns the buffer (Go memory, used
** only for the duration of the call); when it is too small the function
** returns DAL_ROWS_FULL with the bytes it needs, and the caller grows the
** buffer and calls again with the same state: the row already stepped is
** written from the start, nothing is stepped twice. */
#ifndef DAL_SQLITE_ROWS_H
#define DAL_SQLITE_ROWS_H
#include <sqlite3.h>
#include <stdint.h>

#include "params.h"

/* Returned besides SQLITE_DONE and SQLite's (primary) error codes. */
#define DAL_ROWS_FULL  1000 /* buffer too small: grow it by need, call again */
#define DAL_ROWS_LIMIT 1001 /* len - start > limit after the last row written */

typedef struct {
  int64_t len;      /* in/out: bytes of buf in use */
  int64_t cap;      /* in: capacity of buf */
  int64_t start;    /* in: offset of the response, from which limit counts */
  int64_t limit;    /* in: max_response_bytes */
  int64_t need;     /* out (DAL_ROWS_FULL): free bytes the next write needs */
  int64_t count_at; /* internal: offset of the array32 header of the rows */
  uint32_t rows;    /* out: rows written */
  int32_t step_rc;  /* internal: result of a step not yet encoded, 0 if none */
  int32_t ncol;     /* internal: columns, -1 until the header is written */
} dal_rows_state;

/* Call with the state zeroed except cap, len, start, limit and ncol = -1,
** and the statement's n parameters (params.h), which are bound first; the
** calls that continue after DAL_ROWS_FULL pass n = 0. A failed bind returns
** its result code. */
int dal_sqlite_rows(sqlite3_stmt *s, const dal_param *params, int n, unsigned char *buf, dal_rows_state *st);
#endif
