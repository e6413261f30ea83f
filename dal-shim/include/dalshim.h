/*
** dalshim.h -- the C ABI of libdalshim.so, the layer every JS runtime path
** (bun:ffi, Deno.dlopen, koffi, libffi, the Node addon) crosses on its way
** to a data-access layer (DAL) that implements native/include/dal.h.
**
** The shim loads the DAL with dlopen(), resolves every dal.h symbol once,
** checks the ABI version, and then forwards calls, adding:
**
**   - shim-owned response buffers (ownership mode (a)) tracked in a
**     live-buffer registry, so that a double free or a foreign pointer is
**     reported as an error code instead of corrupting the heap;
**   - a thread-local last error that covers both shim and DAL failures;
**   - process-wide accounting (calls, bytes, errors, live buffers, malloc
**     bytes in use) next to the DAL's own counters.
**
** CONVENTIONS
**
** Every parameter and return value is an integer, a pointer or a size.  No
** struct is passed by value, no callback crosses the boundary, and the one
** out-parameter is dalshim_query_ex()'s code (for calls made on a thread
** pool).  Functions that can fail return a negative code: the DAL's DAL_E_*
** codes (-1 .. -11, repeated below so this header stands alone) or the
** shim's own DALSHIM_E_* codes (-20 and below).  Like errno, the message
** that goes with the most recent failure on the calling thread is
** returned by dalshim_last_error().
**
** Handles returned by dalshim_open() are the DAL's handles unchanged
** (positive, never reused), so a handle can be passed to the DAL directly
** and vice versa.
**
** THREADS
**
** Every function may be called from any thread at any time.  One handle may
** serve many threads at once.
**
** LOADING
**
** The DAL is loaded once per process, either explicitly by dalshim_load() or
** lazily by the first dalshim_open().  The library is found, in order, at
** the path given to dalshim_load(), at $DAL_LIBRARY, or as "libdal.so" in
** the directory that holds libdalshim.so itself.  It is never unloaded: it
** embeds a Go runtime, which cannot be shut down (golang/go#11100).
*/
#ifndef DALSHIM_H
#define DALSHIM_H

#include <stddef.h>
#include <stdint.h>

/*
** Export convention (the same as dalmonitor.h's DALMON_API): the header
** marks the ABI's functions default-visible, and libdalshim.so is compiled
** with -fvisibility=hidden, so exactly these functions leave the library.
*/
#if defined(__GNUC__)
#define DALSHIM_API __attribute__((visibility("default")))
#else
#define DALSHIM_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The shim's own version: major*1000000 + minor*1000 + patch. */
#define DALSHIM_VERSION_NUMBER 1002000 /* 1.1: dalshim_query_ex; 1.2: DALSHIM_STAT_TOTAL holds dal.h 1.2's stats */
DALSHIM_API int32_t dalshim_version(void);

/*
** RESULT CODES
*/
/* clang-format off */
#define DALSHIM_OK                  0
/* The DAL's codes, passed through unchanged (see dal.h). */
#define DALSHIM_E_HANDLE           -1   /* handle was never issued (see DALSHIM_E_CLOSED) */
#define DALSHIM_E_NULL             -2   /* a required pointer argument is NULL */
#define DALSHIM_E_DECODE           -3   /* request is not well-formed MessagePack */
#define DALSHIM_E_TOO_LARGE        -4   /* request exceeds max_request_bytes */
#define DALSHIM_E_REQUEST          -5   /* well-formed but invalid request */
#define DALSHIM_E_DATABASE         -6   /* database file could not be opened */
#define DALSHIM_E_MISUSE           -7   /* DAL misuse, e.g. no pending response */
#define DALSHIM_E_INTERNAL         -8   /* panic recovered inside the DAL */
#define DALSHIM_E_NOMEM            -9   /* allocation failed (DAL or shim) */
#define DALSHIM_E_OPTIONS         -10   /* invalid option string */
#define DALSHIM_E_LIMIT           -11   /* a limit of the handle was reached (max_response_bytes, ...) */
/* The shim's codes. */
#define DALSHIM_E_LOAD            -20   /* library missing, not loadable, or a dal.h symbol missing */
#define DALSHIM_E_VERSION         -21   /* dal_version()/1000000 != DAL_VERSION_MAJOR */
#define DALSHIM_E_DOUBLE_FREE     -22   /* dalshim_free() of a shim buffer that was already freed */
#define DALSHIM_E_FOREIGN_POINTER -23   /* pointer was never handed out by the shim: not touched */
#define DALSHIM_E_CLOSED          -24   /* handle was issued by the shim but is closed */
#define DALSHIM_E_SQL             -25   /* C++ API only: SQLite error carried in the response "e" field */
#define DALSHIM_E_RESPONSE        -26   /* C++ API only: response is not a valid protocol response */
#define DALSHIM_E_ARG             -27   /* an argument is out of range (negative capacity, ...) */
#define DALSHIM_E_LOADED          -28   /* dalshim_load(path): a different library is already loaded */
/* clang-format on */

/*
** The name of a result code, like sqlite3_errstr(): "DAL_E_HANDLE",
** "DALSHIM_E_DOUBLE_FREE", "DALMON_E_PARAMS", ..., for every code of dal.h,
** this header and dalmonitor.h (no number in libdalshim.so has two
** meanings; the codes -1..-10 are named by their dal.h names), "DAL_OK"
** for 0, and "unknown code" otherwise.  A static string: never freed, never
** NULL.  FFI bindings and the Node addon take names from here instead of
** keeping their own tables.
*/
DALSHIM_API const char *dalshim_code_name(int32_t code);

/*
** Return the message for the most recent failed call made by this thread
** (shim or DAL; a DAL message is copied), or "" if there was none.  The
** pointer stays valid until the next failing shim call on the same thread.
** Never NULL.  dalshim_last_error_code() returns the matching code, or 0.
** Successful calls do not reset either (errno semantics).
*/
DALSHIM_API const char *dalshim_last_error(void);
DALSHIM_API int32_t dalshim_last_error_code(void);

/*
** LOAD
**
** Load the DAL now.  path is an explicit file name, or NULL for the default
** resolution ($DAL_LIBRARY, then libdal.so beside libdalshim.so).  Returns
** DALSHIM_OK, DALSHIM_E_LOAD, DALSHIM_E_VERSION, or DALSHIM_E_LOADED if a
** library is already loaded from a different path (calling it again with
** NULL or the same path is a no-op returning DALSHIM_OK).  A failed load may
** be retried.  Optional: dalshim_open() loads lazily.
*/
DALSHIM_API int32_t dalshim_load(const char *path);

/* The path of the loaded DAL, or "" if none is loaded.  Never NULL. */
DALSHIM_API const char *dalshim_library_path(void);

/* dal_version() of the loaded DAL, or a negative code if none is loaded. */
DALSHIM_API int32_t dalshim_dal_version(void);

/*
** OPEN / CLOSE
**
** dalshim_open() loads the DAL if needed, then calls dal_open(); it returns
** a handle > 0 or a negative code.  options: NULL (defaults) or dal.h's
** "key=value;key=value" string.  The shim parses it first, with the same
** grammar as the DAL (dal.h, OPEN), so a malformed string fails with
** DAL_E_OPTIONS and the DAL's message whichever layer sees it.  The shim
** takes out its own test-only option, and passes everything else to
** dal_open() unchanged:
**
**   plant_leak=shim_malloc   plant_leak_bytes=N   (0..1048576; absent or 0
**                            means 16, as for the DAL's plant layers)
**
** leaks N bytes of malloc() memory per query through that handle, in 1 KiB
** blocks so the average is exact (DALSHIM_STAT_PLANTED_BYTES counts them),
** to show that leak detection works (docs/leak-verdict.md).
**
** dalshim_close() returns DALSHIM_OK, DALSHIM_E_CLOSED (a handle that was
** issued and is closed: dal.h handles increase and are never reused, so
** any handle up to the highest issued that the DAL rejects was closed) or
** DALSHIM_E_HANDLE (never issued).
*/
DALSHIM_API int64_t dalshim_open(const char *data_dir, const char *options);
DALSHIM_API int32_t dalshim_close(int64_t h);

/*
** QUERY, ownership mode (a): the shim allocates the response.
**
** Execute the MessagePack request req[0..len) and return a pointer to a
** malloc()ed copy of the response, owned by the shim's registry, or NULL on
** failure (see dalshim_last_error_code()).  Its length is
** dalshim_buffer_size(p).  Release it with dalshim_free(p), exactly once.
** No DAL-allocated memory outlives the call.
**
** A SQL error (e.g. "no such table") is not a failure: the response carries
** it in its "e" field (docs/protocol.md).
*/
DALSHIM_API void *dalshim_query(int64_t h, const void *req, size_t len);

/*
** Length in bytes of a buffer returned by dalshim_query(), or
** DALSHIM_E_NULL / DALSHIM_E_DOUBLE_FREE / DALSHIM_E_FOREIGN_POINTER.
*/
DALSHIM_API int64_t dalshim_buffer_size(const void *p);

/*
** Release a buffer returned by dalshim_query().  dalshim_free(NULL) is a
** no-op returning DALSHIM_OK.  A pointer that is not live in the registry
** is not touched: DALSHIM_E_DOUBLE_FREE if the shim recently freed it (the
** shim remembers the last few thousand freed pointers; older ones are
** reported as foreign), else DALSHIM_E_FOREIGN_POINTER.
*/
DALSHIM_API int32_t dalshim_free(void *p);

/*
** QUERY, ownership mode (a), with the outcome in hand (since 1.1).
**
** dalshim_query() for a caller that cannot ask this thread's last error
** afterwards: an FFI that runs one C function on a pool thread (Deno's
** nonblocking symbols, koffi's async calls, a libuv work item) resumes in
** JS on another thread, where dalshim_last_error() describes some other
** call.  This function hands back the code and the message with the call.
**
** *code_out receives DALSHIM_OK or the failure's code, and the result is
** a shim buffer in both cases, released with dalshim_free() exactly once:
**
**   *code_out == DALSHIM_OK  the response, exactly as dalshim_query()
**                            returns it;
**   *code_out <  0           the failure's message (the text
**                            dalshim_last_error() would give):
**                            dalshim_buffer_size(p) bytes of UTF-8,
**                            followed by a NUL that is not counted, so p
**                            is also a C string.
**
** The failure is recorded as this thread's last error too, as for
** dalshim_query().  NULL is returned only when code_out is NULL (nothing
** is executed; DALSHIM_E_NULL is recorded) or when the message buffer
** cannot be allocated (*code_out still holds the failure's code; the
** message is this thread's dalshim_last_error()).  A message buffer counts
** in DALSHIM_STAT_BUFFERS_LIVE until it is freed, like a response.
** code_out is written once, before the function returns: a caller that
** runs several calls at once passes one int32_t per call.
*/
DALSHIM_API void *dalshim_query_ex(int64_t h, const void *req, size_t len, int32_t *code_out);

/*
** QUERY, ownership mode (b): the caller provides the buffer.
**
** A straight call through to dal_query_into() (zero copies in the shim):
** returns n, the response length.
**
**   0 <= n <= cap   the response is in buf[0..n).
**   n >  cap        buf was too small; nothing was written.  The request
**                   WAS executed; its response is kept for this thread.
**                   Fetch it with dalshim_take_pending() into a buffer of at
**                   least n bytes.  Never re-send the request to retry.
**   n <  0          an error code.
**
** A thread holds at most one pending response; any later too-small call on
** the same thread (including dalshim_query() with a response above its
** scratch size) replaces it, so take it immediately.
*/
DALSHIM_API int64_t dalshim_query_into(int64_t h, const void *req, size_t len, void *buf, size_t cap);
DALSHIM_API int64_t dalshim_take_pending(void *buf, size_t cap);

/*
** EXEC (administration: schemas and migrations)
**
** dal_exec() of dal.h, passed through with the shim's last-error and
** closed-handle conventions: run the SQL text sql[0..sql_len) on the
** writer connection of database db[0..db_len) (sqlite3_exec() semantics:
** several statements, rows discarded, first failure stops; no NUL
** terminator needed).  NEVER PASS USER INPUT: it is for the application's
** own schema and migrations.  Returns DALSHIM_OK or a code; a SQLite error
** is DAL_E_DATABASE with SQLite's message, an invalid db name
** DAL_E_REQUEST, a closed handle DALSHIM_E_CLOSED, and DALSHIM_E_LOAD if
** the loaded DAL predates dal.h 1.1 (no dal_exec).  Not a query: not
** counted in DALSHIM_STAT_CALLS, and plant_leak=shim_malloc leaks nothing.
*/
DALSHIM_API int32_t dalshim_exec(int64_t h, const char *db, size_t db_len, const char *sql, size_t sql_len);

/*
** STATS
**
** Fill values[0..capacity) with process-wide counters and return how many
** were written, or a negative code.  Indices 0..DALSHIM_STAT_COUNT-1 are
** the shim's own (below); they are followed by the DAL's dal_stats() values
** (index DALSHIM_STAT_DAL_BASE + DAL_STAT_*), if a DAL is loaded.
** Requesting DALSHIM_STAT_TOTAL values gets everything.
** flags: DALSHIM_STATS_FORCE_GC is passed to dal_stats() (full Go GC first;
** stops the Go world briefly: call at sample points, not per query).
**
** Misuse gives dal_stats()'s codes, checked in its order: values NULL with
** capacity > 0 is DAL_E_NULL; a negative capacity, or a flag bit other
** than DALSHIM_STATS_FORCE_GC, is DAL_E_MISUSE.
*/
#define DALSHIM_STATS_FORCE_GC 1

/* clang-format off */
#define DALSHIM_STAT_CALLS              0  /* query calls, both modes (not take_pending) */
#define DALSHIM_STAT_REQUEST_BYTES      1  /* request bytes passed in */
#define DALSHIM_STAT_RESPONSE_BYTES     2  /* response bytes handed out */
#define DALSHIM_STAT_ERRORS             3  /* failed shim calls (any function) */
#define DALSHIM_STAT_BUFFERS_LIVE       4  /* mode (a) buffers handed out, not yet freed */
#define DALSHIM_STAT_BUFFER_BYTES_LIVE  5  /* bytes in those buffers */
#define DALSHIM_STAT_MALLOC_INUSE       6  /* mallinfo2().uordblks: glibc malloc bytes in use, process-wide (0 under ASan) */
#define DALSHIM_STAT_HANDLES_OPEN       7  /* handles opened through the shim and not closed */
#define DALSHIM_STAT_PLANTED_BYTES      8  /* bytes leaked on purpose by plant_leak=shim_malloc */
#define DALSHIM_STAT_COUNT              9
#define DALSHIM_STAT_DAL_BASE           DALSHIM_STAT_COUNT
#define DALSHIM_STAT_TOTAL              (DALSHIM_STAT_COUNT + 21) /* + DAL_STAT_COUNT of dal.h 1.2 */
/* clang-format on */

DALSHIM_API int32_t dalshim_stats(int32_t flags, int64_t *values, int32_t capacity);

/*
** Same as dalshim_stats() but one value per call, for FFIs where passing an
** int64 array is awkward.  Returns the value, or INT64_MIN if index is out
** of range (or it is a DAL index and no DAL is loaded).
*/
DALSHIM_API int64_t dalshim_stat(int32_t flags, int32_t index);

#ifdef __cplusplus
}
#endif

#endif /* DALSHIM_H */
