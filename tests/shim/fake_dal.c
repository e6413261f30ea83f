/*
** fake_dal.c -- a tiny stand-in implementing dal.h, used only to test the
** shim's loader (version check, missing symbol, $DAL_LIBRARY resolution)
** without the Go DAL.  Built three ways by tests/shim/CMakeLists.txt:
**
**   libfakedal_ok.so           version 1.0.0, every dal.h 1.0 symbol (no
**                              dal_exec, added in 1.1: the shim must still
**                              load it)
**   libfakedal_badversion.so   dal_version() = 2000000
**   libfakedal_nostats.so      lacks dal_stats
**   libfakedal_takefails.so    every response is "too large" (1 MiB, beyond
**                              the shim's scratch) and dal_take_pending fails
**                              with DAL_E_INTERNAL: the shim's cleanup path
**   libfakedal_sized.so        the response is as long as the request's
**                              first 4 bytes say (big-endian), and
**                              fake_take_pending_calls() counts
**                              dal_take_pending calls: how often the shim
**                              offered too small a buffer
**
** Every other query answers the 34-byte "no such table: data" response for
** id 9.
*/
#include <stdlib.h>
#include <string.h>

#include "dal.h"

#ifndef FAKE_VERSION
#define FAKE_VERSION 1000000 /* dal.h 1.0.0: the loader accepts any 1.x */
#endif

static const unsigned char kResp[34] = {0x84, 0xa1, 0x69, 0x09, 0xa2, 0x72, 0x61, 0x00, 0xa2, 0x6c, 0x69, 0x00,
                                        0xa1, 0x65, 0xb3, 0x6e, 0x6f, 0x20, 0x73, 0x75, 0x63, 0x68, 0x20, 0x74,
                                        0x61, 0x62, 0x6c, 0x65, 0x3a, 0x20, 0x64, 0x61, 0x74, 0x61};

static __thread const char* g_err = "";
static __thread int32_t g_code = 0;
static __thread int g_pending = 0;

#ifdef FAKE_SIZED
static __thread size_t g_size = 0;
static int64_t g_takes = 0;
int64_t fake_take_pending_calls(void) { return __atomic_load_n(&g_takes, __ATOMIC_RELAXED); }
static size_t requested_size(const void* req, size_t len) {
  const unsigned char* b = (const unsigned char*)req;
  return len < 4 ? sizeof kResp : ((size_t)b[0] << 24 | (size_t)b[1] << 16 | (size_t)b[2] << 8 | b[3]);
}
#endif

static int64_t fail(int32_t code, const char* msg) {
  g_err = msg;
  g_code = code;
  return code;
}

int32_t dal_version(void) { return FAKE_VERSION; }
const char* dal_version_string(void) { return "fake dal"; }
const char* dal_last_error(void) { return g_err; }
int32_t dal_last_error_code(void) { return g_code; }
int64_t dal_open(const char* dir, const char* opt) {
  (void)opt;
  return dir ? 1 : fail(DAL_E_NULL, "data_dir is NULL");
}
int32_t dal_close(int64_t h) { return h == 1 ? DAL_OK : (int32_t)fail(DAL_E_HANDLE, "fake: bad handle"); }
int64_t dal_query(int64_t h, const void* req, size_t len, void** resp) {
  (void)len;
  *resp = NULL;
  if (h != 1) return fail(DAL_E_HANDLE, "fake: bad handle");
  if (!req) return fail(DAL_E_NULL, "fake: req is NULL");
  *resp = malloc(sizeof kResp);
  memcpy(*resp, kResp, sizeof kResp);
  return sizeof kResp;
}
int32_t dal_free(void* p) {
  free(p);
  return DAL_OK;
}
int64_t dal_query_into(int64_t h, const void* req, size_t len, void* buf, size_t cap) {
  (void)len;
  if (h != 1) return fail(DAL_E_HANDLE, "fake: bad handle");
  if (!req) return fail(DAL_E_NULL, "fake: req is NULL");
#ifdef FAKE_SIZED
  g_size = requested_size(req, len);
  if (cap < g_size) {
    g_pending = 1;
    return (int64_t)g_size;
  }
  memset(buf, 0xa5, g_size);
  return (int64_t)g_size;
#endif
#ifdef FAKE_TAKE_FAILS
  (void)buf;
  (void)cap;
  g_pending = 1;
  return 1 << 20;
#endif
  if (cap < sizeof kResp) {
    g_pending = 1;
    return sizeof kResp;
  }
  memcpy(buf, kResp, sizeof kResp);
  return sizeof kResp;
}
int64_t dal_take_pending(void* buf, size_t cap) {
  if (!g_pending) return fail(DAL_E_MISUSE, "fake: no pending response");
#ifdef FAKE_SIZED
  __atomic_add_fetch(&g_takes, 1, __ATOMIC_RELAXED);
  if (cap < g_size) return (int64_t)g_size;
  memset(buf, 0xa5, g_size);
  g_pending = 0;
  return (int64_t)g_size;
#endif
#ifdef FAKE_TAKE_FAILS
  g_pending = 0;
  return fail(DAL_E_INTERNAL, "fake: take_pending fails");
#endif
  if (cap < sizeof kResp) return sizeof kResp;
  memcpy(buf, kResp, sizeof kResp);
  g_pending = 0;
  return sizeof kResp;
}
#ifndef FAKE_NO_STATS
int32_t dal_stats(int32_t flags, int64_t* v, int32_t cap) {
  (void)flags;
  int32_t n = cap < DAL_STAT_COUNT ? cap : DAL_STAT_COUNT;
  for (int32_t i = 0; i < n; i++) v[i] = 1000 + i;
  return n;
}
#endif
