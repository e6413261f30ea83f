/* Small C wrappers that keep cgo calls to one per operation and express
** SQLite macros (SQLITE_TRANSIENT) that cgo cannot. */
#ifndef DAL_SQLITE_BINDING_H
#define DAL_SQLITE_BINDING_H
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "params.h"

static inline int dal_sqlite_open(const char *path, int flags, int busy_ms, sqlite3 **out) {
  int rc = sqlite3_open_v2(path, out, flags, NULL);
  if (rc != SQLITE_OK) return rc;
  sqlite3_extended_result_codes(*out, 0);
  sqlite3_busy_timeout(*out, busy_ms);
  /* Every quoted identifier the builder emits must be a name or an error.
  ** With the double-quoted-string fallback on (the legacy default), an
  ** unknown "column" silently becomes the string 'column': a Delete whose
  ** filter named a misspelt column matched, and removed, every row.
  ** Refuse to open a connection on which the fallback cannot be turned off. */
  int dml = 1, ddl = 1;
  if (sqlite3_db_config(*out, SQLITE_DBCONFIG_DQS_DML, 0, &dml) != SQLITE_OK ||
      sqlite3_db_config(*out, SQLITE_DBCONFIG_DQS_DDL, 0, &ddl) != SQLITE_OK || dml != 0 || ddl != 0)
    return SQLITE_MISUSE;
  return rc;
}

/* The time limit of one request on a connection (max_query_ms), enforced by
** SQLite's progress handler: no timer thread, no signal, and no cgo call per
** request.  The Go side arms it with two plain stores into this C struct
** before a request (start_ns = 0, expired = 0); the handler stamps the
** start on its first call and interrupts the statement once limit_ns has
** passed.  The clock therefore starts after the first DAL_PROGRESS_OPS
** virtual-machine instructions -- microseconds -- and a statement that
** finishes sooner never reads the clock at all.  Only the thread running the
** connection touches it (one goroutine per connection at a time). */
typedef struct {
  int64_t limit_ns;
  int64_t start_ns; /* 0: not started */
  int32_t expired;  /* 1: the handler interrupted the statement */
} dal_query_clock;

#define DAL_PROGRESS_OPS 1000

static inline int64_t dal_monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int dal_sqlite_progress(void *p) {
  dal_query_clock *c = p;
  int64_t now = dal_monotonic_ns();
  if (c->start_ns == 0) {
    c->start_ns = now;
    return 0;
  }
  if (now - c->start_ns > c->limit_ns) {
    c->expired = 1;
    return 1; /* SQLite ends the statement with SQLITE_INTERRUPT */
  }
  return 0;
}

/* Install the time limit; returns the clock to arm, or NULL on OOM. */
static inline dal_query_clock *dal_sqlite_set_time_limit(sqlite3 *db, int64_t limit_ms) {
  dal_query_clock *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->limit_ns = limit_ms * 1000000;
  sqlite3_progress_handler(db, DAL_PROGRESS_OPS, dal_sqlite_progress, c);
  return c;
}

static inline const char *dal_sqlite_errmsg(sqlite3 *db, size_t *len) {
  const char *m = sqlite3_errmsg(db);
  *len = strlen(m);
  return m;
}

static inline int dal_sqlite_exec(sqlite3 *db, const char *sql) { return sqlite3_exec(db, sql, NULL, NULL, NULL); }

/* A prepare's outcome, returned by value: cgo checks no out-pointer, and a
** failure brings SQLite's message with it, so the error response needs no
** second cgo call (a failing prepare is the reference workload's whole
** query). msg stays valid until the next call on the connection. */
typedef struct {
  sqlite3_stmt *stmt;
  const char *msg; /* NULL unless rc != SQLITE_OK */
  size_t msg_len;
  int rc;
} dal_prepared;

/* PERSISTENT: cached statements live long, so SQLite should not take their
** memory from its short-lived lookaside pool. */
static inline dal_prepared dal_sqlite_prepare(sqlite3 *db, const char *sql, int n) {
  dal_prepared p = {NULL, NULL, 0, SQLITE_OK};
  p.rc = sqlite3_prepare_v3(db, sql, n, SQLITE_PREPARE_PERSISTENT, &p.stmt, NULL);
  if (p.rc != SQLITE_OK) {
    p.msg = sqlite3_errmsg(db);
    p.msg_len = strlen(p.msg);
  }
  return p;
}

/* One write statement (INSERT, UPDATE, DELETE) in one cgo call instead of
** one per parameter and four more: bind its n parameters (params.h), step
** it to the end (RETURNING is not generated, but rows are harmless), read
** the changes and, when asked, the rowid of an insert that inserted
** (last_insert_rowid is per connection and survives other statements: never
** report a stale one), and reset it when it stays cached (a finalized one
** needs no reset). The reset keeps the bind's or the step's error code and
** message on the connection, as the separate calls did. Returns the first
** failure's result code, or the step's SQLITE_DONE. */
typedef struct {
  int64_t changes;
  int64_t rowid;
} dal_write_result;

static inline int dal_sqlite_write(sqlite3_stmt *s, const dal_param *params, int n, int want_rowid, int reset,
                                   dal_write_result *r) {
  int rc = dal_sqlite_bind_params(s, params, n);
  if (rc == SQLITE_OK)
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {}
  r->changes = r->rowid = 0;
  if (rc == SQLITE_DONE) {
    sqlite3 *db = sqlite3_db_handle(s);
    r->changes = sqlite3_changes64(db);
    if (want_rowid && r->changes > 0) r->rowid = sqlite3_last_insert_rowid(db);
  }
  if (reset) {
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
  }
  return rc;
}
#endif
