/* See tls.h.  dal_last_error, dal_last_error_code and dal_take_pending are
** implemented here, in C, because they only touch the calling thread's slot
** and must work even when the Go side has failed. */
#include "tls.h"

#include "dal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int32_t code;
  char *msg; /* NUL-terminated, never NULL once allocated */
  size_t msg_cap;
  void *pending; /* dal_query_into response that did not fit */
  size_t pending_len;
  int pending_ok;
} dal_thread_state;

static pthread_key_t state_key;
static pthread_once_t state_once = PTHREAD_ONCE_INIT;
static int64_t pending_live; /* atomics: read by dal_stats from any thread */
static int64_t pending_bytes;

static void free_state(void *p) {
  dal_thread_state *s = p;
  if (s->pending) {
    __atomic_sub_fetch(&pending_live, 1, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&pending_bytes, (int64_t)s->pending_len, __ATOMIC_RELAXED);
    free(s->pending);
  }
  free(s->msg);
  free(s);
}

static void make_key(void) { pthread_key_create(&state_key, free_state); }

/* The thread's slot, created on first use and freed when the thread exits. */
static dal_thread_state *state(void) {
  pthread_once(&state_once, make_key);
  dal_thread_state *s = pthread_getspecific(state_key);
  if (!s) {
    s = calloc(1, sizeof *s);
    if (!s) return NULL;
    pthread_setspecific(state_key, s);
  }
  return s;
}

char *dal__error_buffer(int32_t code, size_t *len) {
  dal_thread_state *s = state();
  if (!s) return NULL;
  s->code = code;
  size_t n = *len;
  if (n + 1 > s->msg_cap) {
    char *m = realloc(s->msg, n + 1);
    if (!m) { /* keep the code; shorten the message to what fits */
      if (!s->msg) {
        *len = 0;
        return NULL;
      }
      n = s->msg_cap - 1;
    } else {
      s->msg = m;
      s->msg_cap = n + 1;
    }
  }
  s->msg[n] = 0;
  *len = n;
  return s->msg;
}

static void set_error(int32_t code, const char *msg, size_t len) {
  char *buf = dal__error_buffer(code, &len);
  if (buf) memcpy(buf, msg, len);
}

const char *dal_last_error(void) {
  dal_thread_state *s = state();
  return (s && s->msg) ? s->msg : "";
}

int32_t dal_last_error_code(void) {
  dal_thread_state *s = state();
  return s ? s->code : DAL_OK;
}

static void drop_pending(dal_thread_state *s) {
  if (s->pending) {
    __atomic_sub_fetch(&pending_live, 1, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&pending_bytes, (int64_t)s->pending_len, __ATOMIC_RELAXED);
    free(s->pending);
    s->pending = NULL;
    s->pending_len = 0;
  }
}

void dal__set_pending(const void *src, size_t len) {
  dal_thread_state *s = state();
  if (!s) return;
  drop_pending(s);
  s->pending_ok = 0;
  void *p = malloc(len ? len : 1);
  if (!p) return;
  memcpy(p, src, len);
  s->pending = p;
  s->pending_len = len;
  s->pending_ok = 1;
  __atomic_add_fetch(&pending_live, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&pending_bytes, (int64_t)len, __ATOMIC_RELAXED);
}

int dal__pending_ok(void) {
  dal_thread_state *s = state();
  return s && s->pending_ok;
}

int64_t dal_take_pending(void *buf, size_t buf_cap) {
  static const char none[] = "dal_take_pending: this thread has no pending response";
  static const char null[] = "dal_take_pending: buf is NULL";
  dal_thread_state *s = state();
  if (!s) return DAL_E_NOMEM;
  if (!s->pending) {
    set_error(DAL_E_MISUSE, none, sizeof none - 1);
    return DAL_E_MISUSE;
  }
  int64_t n = (int64_t)s->pending_len;
  if (s->pending_len > buf_cap) return n; /* still too small: keep it */
  if (!buf && n > 0) {
    set_error(DAL_E_NULL, null, sizeof null - 1);
    return DAL_E_NULL;
  }
  memcpy(buf, s->pending, s->pending_len);
  drop_pending(s);
  return n;
}

void *dal__buf_copy(const void *src, size_t len) {
  void *p = malloc(len ? len : 1);
  if (p) memcpy(p, src, len);
  return p;
}

int64_t dal__pending_live(void) { return __atomic_load_n(&pending_live, __ATOMIC_RELAXED); }
int64_t dal__pending_bytes(void) { return __atomic_load_n(&pending_bytes, __ATOMIC_RELAXED); }
