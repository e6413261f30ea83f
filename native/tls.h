/* Per-thread state of the DAL's C ABI: the last error (errno-style) and the
** pending response of dal_query_into.  Kept in C, not Go, because it is keyed
** by the calling OS thread: during an exported call the Go code runs on the
** caller's own thread, so these helpers see that thread's slot. */
#ifndef DAL_TLS_H
#define DAL_TLS_H
#include <stddef.h>
#include <stdint.h>

/* Record code as this thread's last error and return the buffer for its
** message: the caller writes *len bytes into it (the NUL is already there).
** Go copies the message itself, so C never reads Go memory.  If a longer
** buffer cannot be allocated, *len is cut to what the old buffer holds; if
** the thread has no slot or buffer at all, NULL is returned (with the code
** stored when the slot exists). */
char *dal__error_buffer(int32_t code, size_t *len);
/* Keep a copy of src as this thread's pending response, replacing (and
** freeing) an earlier one.  Records no error itself: when malloc fails
** nothing is kept, dal__pending_ok() returns 0, and the caller reports
** DAL_E_NOMEM. */
void dal__set_pending(const void *src, size_t len);
int dal__pending_ok(void);                        /* 1 if the last dal__set_pending stored its copy */
void *dal__buf_copy(const void *src, size_t len); /* malloc + memcpy, for dal_query responses */
int64_t dal__pending_live(void);
int64_t dal__pending_bytes(void);
#endif
