/* Statement parameters handed to C in one array, bound by the cgo call that
** steps the statement (dal_sqlite_write, dal_sqlite_rows), so that binding
** costs no cgo call per parameter. */
#ifndef DAL_SQLITE_PARAMS_H
#define DAL_SQLITE_PARAMS_H
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { DAL_PARAM_NULL, DAL_PARAM_INT, DAL_PARAM_FLOAT, DAL_PARAM_TEXT, DAL_PARAM_BLOB };

/* One parameter, written by Go into the connection's C array (sqlite.Params).
** p is the address of n bytes of text or blob: the C caller's request, or a
** Go request pinned for the call (engine.Handle.Query), read only during the
** call that binds it (SQLite copies them: SQLITE_TRANSIENT). It is held as an
** integer so that Go stores it without a write barrier into C memory, where
** the garbage collector would later meet a stale pointer. */
typedef struct {
  int64_t num; /* INT: the value; FLOAT: its IEEE 754 bits */
  uintptr_t p;
  int32_t n;
  int32_t kind; /* DAL_PARAM_*; anything else: SQLITE_MISMATCH */
} dal_param;

/* Grows a parameter array to hold n; NULL when out of memory (a is kept). */
static inline dal_param *dal_params_grow(dal_param *a, int n) { return realloc(a, (size_t)n * sizeof *a); }

/* Binds v[0..n) to parameters 1..n; returns SQLite's result code. */
static inline int dal_sqlite_bind_params(sqlite3_stmt *s, const dal_param *v, int n) {
  for (int i = 0; i < n; i++) {
    int rc;
    const void *p = (const void *)v[i].p;
    switch (v[i].kind) {
      case DAL_PARAM_NULL: rc = sqlite3_bind_null(s, i + 1); break;
      case DAL_PARAM_INT: rc = sqlite3_bind_int64(s, i + 1, v[i].num); break;
      case DAL_PARAM_FLOAT: {
        double d;
        memcpy(&d, &v[i].num, sizeof d);
        rc = sqlite3_bind_double(s, i + 1, d);
        break;
      }
      case DAL_PARAM_TEXT: rc = sqlite3_bind_text(s, i + 1, v[i].n ? p : "", v[i].n, SQLITE_TRANSIENT); break;
      case DAL_PARAM_BLOB:
        rc = v[i].n ? sqlite3_bind_blob(s, i + 1, p, v[i].n, SQLITE_TRANSIENT) : sqlite3_bind_zeroblob(s, i + 1, 0);
        break;
      default: rc = SQLITE_MISMATCH;
    }
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}
#endif
