/* MessagePack encoding of result rows; rows.h says what and why.  The forms
** chosen for each value are msgp's (github.com/tinylib/msgp, the Go
** encoder of every other response), so the bytes are identical to the Go
** path this replaced; rows_test.go checks that byte for byte. */
#include "rows.h"

#include <string.h>

typedef struct {
  unsigned char *p, *end;
} cursor;

static int room(const cursor *c, int64_t n) { return c->end - c->p >= n; }

static void put_be(cursor *c, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; i--) *c->p++ = (unsigned char)(v >> (8 * i));
}

/* The header of a str, bin or array of n bytes or items, in the smallest
** form msgp uses: fix (fixmax >= 0: n <= fixmax, in one byte fix | n), 8-bit
** (when the format has one, m8 != 0), 16-bit or 32-bit length. Returns its
** size, and writes it when the cursor is given. */
typedef struct {
  int fixmax;
  unsigned char fix, m8, m16, m32;
} header_form;

static const header_form str_form = {31, 0xa0, 0xd9, 0xda, 0xdb};
static const header_form bin_form = {-1, 0, 0xc4, 0xc5, 0xc6};
static const header_form array_form = {15, 0x90, 0, 0xdc, 0xdd};

static int header(cursor *c, const header_form *f, uint32_t n) {
  if (f->fixmax >= 0 && n <= (uint32_t)f->fixmax) {
    if (c) *c->p++ = (unsigned char)(f->fix | n);
    return 1;
  }
  if (f->m8 && n <= 0xff) {
    if (c) *c->p++ = f->m8, put_be(c, n, 1);
    return 2;
  }
  if (n <= 0xffff) {
    if (c) *c->p++ = f->m16, put_be(c, n, 2);
    return 3;
  }
  if (c) *c->p++ = f->m32, put_be(c, n, 4);
  return 5;
}

static int str_header(cursor *c, uint32_t n) { return header(c, &str_form, n); }
static int bin_header(cursor *c, uint32_t n) { return header(c, &bin_form, n); }
static int array_header(cursor *c, uint32_t n) { return header(c, &array_form, n); }

/* msgp.AppendInt64: positive fixint, then the signed int16/32/64 forms for
** non-negative values; negative fixint, then int8/16/32/64. */
static int int_size(int64_t i) {
  if (i >= 0) return i <= 0x7f ? 1 : i <= 0x7fff ? 3 : i <= 0x7fffffff ? 5 : 9;
  return i >= -32 ? 1 : i >= -128 ? 2 : i >= -32768 ? 3 : i >= -2147483647 - 1 ? 5 : 9;
}

static void put_int(cursor *c, int64_t i) {
  switch (int_size(i)) {
    case 1: *c->p++ = (unsigned char)i; break; /* fixint, either sign */
    case 2: *c->p++ = 0xd0, put_be(c, (uint64_t)i, 1); break;
    case 3: *c->p++ = 0xd1, put_be(c, (uint64_t)i, 2); break;
    case 5: *c->p++ = 0xd2, put_be(c, (uint64_t)i, 4); break;
    default: *c->p++ = 0xd3, put_be(c, (uint64_t)i, 8); break;
  }
}

/* Encoded size of column i of the current row. Text is read before its
** length, as sqlite3_column_bytes() asks. */
static int64_t value_size(sqlite3_stmt *s, int i) {
  switch (sqlite3_column_type(s, i)) {
    case SQLITE_INTEGER: return int_size(sqlite3_column_int64(s, i));
    case SQLITE_FLOAT: return 9;
    case SQLITE_TEXT: {
      const unsigned char *t = sqlite3_column_text(s, i);
      uint32_t n = t ? (uint32_t)sqlite3_column_bytes(s, i) : 0;
      return str_header(NULL, n) + (int64_t)n;
    }
    case SQLITE_BLOB: {
      const void *b = sqlite3_column_blob(s, i);
      uint32_t n = b ? (uint32_t)sqlite3_column_bytes(s, i) : 0;
      return bin_header(NULL, n) + (int64_t)n;
    }
    default: return 1;
  }
}

static int64_t row_size(sqlite3_stmt *s, int ncol) {
  int64_t n = array_header(NULL, (uint32_t)ncol);
  for (int i = 0; i < ncol; i++) n += value_size(s, i);
  return n;
}

/* Writes the current row; 0 when it does not fit (the cursor is then left
** anywhere in the free space, which the caller discards). Each check is
** exact, so a row fails here if and only if row_size() exceeds the free
** space: the caller's retry with that much room always succeeds. */
static int put_row(cursor *c, sqlite3_stmt *s, int ncol) {
  if (!room(c, array_header(NULL, (uint32_t)ncol))) return 0;
  array_header(c, (uint32_t)ncol);
  for (int i = 0; i < ncol; i++) {
    switch (sqlite3_column_type(s, i)) {
      case SQLITE_INTEGER: {
        int64_t v = sqlite3_column_int64(s, i);
        if (!room(c, int_size(v))) return 0;
        put_int(c, v);
        break;
      }
      case SQLITE_FLOAT: {
        if (!room(c, 9)) return 0;
        double d = sqlite3_column_double(s, i);
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        *c->p++ = 0xcb;
        put_be(c, bits, 8);
        break;
      }
      case SQLITE_TEXT: {
        const unsigned char *t = sqlite3_column_text(s, i);
        uint32_t n = t ? (uint32_t)sqlite3_column_bytes(s, i) : 0;
        if (!room(c, str_header(NULL, n) + (int64_t)n)) return 0;
        str_header(c, n);
        if (n) memcpy(c->p, t, n), c->p += n;
        break;
      }
      case SQLITE_BLOB: {
        const void *b = sqlite3_column_blob(s, i);
        uint32_t n = b ? (uint32_t)sqlite3_column_bytes(s, i) : 0;
        if (!room(c, bin_header(NULL, n) + (int64_t)n)) return 0;
        bin_header(c, n);
        if (n) memcpy(c->p, b, n), c->p += n;
        break;
      }
      default:
        if (!room(c, 1)) return 0;
        *c->p++ = 0xc0;
        break;
    }
  }
  return 1;
}

/* The column-name array, then "r" and an array32 header patched at the end
** (SQLite cannot say in advance how many rows a statement yields). Written
** after the first step: a step that re-prepared the statement (the schema
** changed) may have changed its columns. */
static int64_t header_size(sqlite3_stmt *s, int ncol) {
  int64_t n = array_header(NULL, (uint32_t)ncol) + 2 + 5;
  for (int i = 0; i < ncol; i++) {
    const char *name = sqlite3_column_name(s, i);
    uint32_t len = name ? (uint32_t)strlen(name) : 0;
    n += str_header(NULL, len) + (int64_t)len;
  }
  return n;
}

static void put_header(cursor *c, sqlite3_stmt *s, int ncol) {
  array_header(c, (uint32_t)ncol);
  for (int i = 0; i < ncol; i++) {
    const char *name = sqlite3_column_name(s, i);
    uint32_t len = name ? (uint32_t)strlen(name) : 0;
    str_header(c, len);
    if (len) memcpy(c->p, name, len), c->p += len;
  }
  *c->p++ = 0xa1, *c->p++ = 'r';
  *c->p++ = 0xdd, put_be(c, 0, 4);
}

int dal_sqlite_rows(sqlite3_stmt *s, const dal_param *params, int n, unsigned char *buf, dal_rows_state *st) {
  int bound = dal_sqlite_bind_params(s, params, n);
  if (bound != SQLITE_OK) return bound;
  cursor c = {buf + st->len, buf + st->cap};
  for (;;) {
    if (st->step_rc == 0) st->step_rc = sqlite3_step(s);
    if (st->ncol < 0) {
      int ncol = sqlite3_column_count(s);
      int64_t n = header_size(s, ncol);
      if (!room(&c, n)) {
        st->need = n;
        return DAL_ROWS_FULL;
      }
      put_header(&c, s, ncol);
      st->count_at = c.p - buf - 5;
      st->ncol = ncol;
      st->len = c.p - buf;
    }
    int rc = st->step_rc;
    if (rc == SQLITE_DONE) {
      cursor at = {buf + st->count_at + 1, buf + st->count_at + 5};
      put_be(&at, st->rows, 4);
      return SQLITE_DONE;
    }
    if (rc != SQLITE_ROW) return rc;
    if (!put_row(&c, s, st->ncol)) {
      c.p = buf + st->len; /* drop the partial row */
      st->need = row_size(s, st->ncol);
      return DAL_ROWS_FULL;
    }
    st->len = c.p - buf;
    st->rows++;
    st->step_rc = 0;
    /* Checked per row, so the buffer overshoots by at most one row. */
    if (st->len - st->start > st->limit) return DAL_ROWS_LIMIT;
  }
}
