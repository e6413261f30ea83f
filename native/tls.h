/* Per-thread state of the DAL's C ABI: the last error (errno-style) and the
** pending response of dal_query_into.  Kept in C, not Go, because it is keyed
** by the calling OS thread: during an exported call the Go code runs on the
** caller's own thread, so these helpers see that thread's slot. */
#ifndef DAL_TLS_H
#define DAL_TLS_H
#include <stddef.h>
#include <stdint.h>

void dal__set_error(int32_t code, const char *msg, size_t len);
void dal__set_pending(const void *src, size_t len);  /* copies; returns nothing, OOM recorded as DAL_E_NOMEM */
int  dal__pending_ok(void);                           /* 1 if the last dal__set_pending stored its copy */
void *dal__buf_copy(const void *src, size_t len);     /* malloc + memcpy, for dal_query responses */
int64_t dal__pending_live(void);
int64_t dal__pending_bytes(void);
#endif
