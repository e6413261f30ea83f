/*
** dal.h -- the C ABI of the data-access layer (DAL).
**
** The DAL turns MongoDB-style query objects, encoded as MessagePack, into
** SQL over SQLite 3 in WAL mode, or over a PostgreSQL server (see OPEN),
** and answers in MessagePack.  The wire format
** of requests and responses is specified in docs/protocol.md.
**
** This header is the whole contract between the DAL and its callers (the
** C++ shim, FFI bindings, tests).  It is kept deliberately small and regular
** so that any FFI can call it: every parameter and return value is an
** integer, a pointer or a size.  No struct is passed by value and no
** callback crosses the boundary.
**
** CONVENTIONS
**
** Handles are positive 64-bit integers issued by a locked registry inside
** the library.  They are never pointers, are never reused within a process,
** and a closed or unknown handle is reported as DAL_E_HANDLE, never a crash.
**
** Functions that can fail return a negative DAL_E_* code.  The message that
** goes with the most recent failure on the calling thread is returned by
** dal_last_error(); like errno it is thread-local, so concurrent callers do
** not see each other's messages.
**
** An error raised by SQLite while executing a valid request (for example
** "no such table: data") is not a call failure: the call succeeds and the
** response carries the message in its "e" field (docs/protocol.md).
** Call failures are reserved for problems with the call itself: bad handle,
** NULL pointer, undecodable or oversized request, invalid query, a database
** that cannot be opened, and a limit of the handle (DAL_E_LIMIT).  A request
** may ask for SQLite's extended result code in error responses
** (docs/protocol.md, request key "codes").  dal_exec() has no response, so
** there a SQLite error is a call failure (DAL_E_DATABASE).
**
** THREADS
**
** Every function may be called from any thread, including threads that the
** Go runtime did not create.  One handle serves many threads at once: reads
** run concurrently on a pool of connections, writes are serialized on one
** connection per database file (SQLite's WAL mode allows exactly that).
** On PostgreSQL every request takes a connection of the handle's pool.
**
** UNLOADING
**
** The library embeds a Go runtime.  A Go runtime cannot be shut down: its
** threads, signal handlers and heap stay alive until the process exits
** (golang/go#11100).  Never dlclose() this library; a dlclose() followed by
** any later signal or scheduler tick jumps into unmapped code and kills the
** process.  Load it once (RTLD_NOW is recommended) and keep it.
*/
#ifndef DAL_H
#define DAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
** VERSION
**
** DAL_VERSION_NUMBER is major*1000000 + minor*1000 + patch.  The major number
** changes only when this ABI changes incompatibly; a caller built against
** major M must refuse a library whose dal_version() / 1000000 != M.
*/
/* clang-format off */
#define DAL_VERSION_MAJOR  1
#define DAL_VERSION_MINOR  2
#define DAL_VERSION_PATCH  0
#define DAL_VERSION_NUMBER (DAL_VERSION_MAJOR * 1000000 + DAL_VERSION_MINOR * 1000 + DAL_VERSION_PATCH)
/* clang-format on */

/* The DAL_VERSION_NUMBER the library was built with. */
int32_t dal_version(void);

/* A static, human-readable version string such as
** "dal 1.2.0 (sqlite 3.40.1, go1.26.8; sqlite config: multi-thread, memstatus off, counting allocator)".
** The part after "sqlite config:" is the process-wide SQLite configuration in
** effect. The DAL sets it (multi-thread mode, no memory statistics, its own
** counting allocator) on its first SQLite call, which is possible only if
** nothing in the process initialized the same libsqlite3 before; otherwise
** it reads "initialized before the DAL, configuration kept, memory from
** sqlite3_memory_used" and the DAL works with the configuration it found.
** With the DAL's configuration, sqlite3_memory_used() reads 0 for everyone
** in the process; DAL_STAT_SQLITE_MEMORY_USED is the figure to use. */
const char *dal_version_string(void);

/*
** RESULT CODES
**
** Zero or positive return values mean success; these negative codes mean the
** call failed and wrote nothing: DAL_E_LIMIT ends a statement that had
** started and rolls it back.  The one exception is DAL_E_INTERNAL: a panic
** was recovered, and whether a write it interrupted was committed is not
** known.
*/
/* clang-format off */
#define DAL_OK             0
#define DAL_E_HANDLE      -1   /* handle is not open: never issued, or closed */
#define DAL_E_NULL        -2   /* a required pointer argument is NULL */
#define DAL_E_DECODE      -3   /* request is not well-formed MessagePack (truncated, garbage, trailing bytes) */
#define DAL_E_TOO_LARGE   -4   /* request exceeds the handle's max_request_bytes */
#define DAL_E_REQUEST     -5   /* well-formed but invalid: unknown method or operator, wrong argument type, bad identifier
                                  or db name, a MessagePack str that is not valid UTF-8 */
#define DAL_E_DATABASE    -6   /* the database file could not be opened or configured */
#define DAL_E_MISUSE      -7   /* API misuse: freeing a pointer the DAL does not own (foreign or already freed), no pending
                                  response, dal_stats with unknown flag bits or a negative capacity */
#define DAL_E_INTERNAL    -8   /* a panic was recovered inside the library; the handle stays usable */
#define DAL_E_NOMEM       -9   /* memory allocation failed */
#define DAL_E_OPTIONS    -10   /* an option string passed to dal_open is invalid */
#define DAL_E_LIMIT      -11   /* a limit of the handle was reached: max_databases (all open
                                  databases are in use), max_response_bytes or max_query_ms.
                                  The statement was ended and any write rolled back; the
                                  handle stays usable */
/* clang-format on */

/*
** Return the name of a result code as a static string: "DAL_OK",
** "DAL_E_HANDLE", ...  A value that is not a DAL_* code gives
** "DAL_E_UNKNOWN".  Never NULL; needs no handle and never fails, so FFI
** bindings can name codes without keeping their own table (compare
** sqlite3_errstr()).
*/
const char *dal_code_name(int32_t code);

/*
** Return the message for the most recent failed call made by this thread,
** or "" if the thread has not seen a failure.  The pointer stays valid until
** the next DAL call on the same thread.  Never NULL.
*/
const char *dal_last_error(void);

/* Return the code of the most recent failed call on this thread, or DAL_OK. */
int32_t dal_last_error_code(void);

/*
** OPEN
**
** Open a handle on a data directory.  Databases named by a request's "db"
** field are files directly inside this directory; a name can never reach
** outside it (no separators, no "..", no absolute paths, no symbolic links).
** The directory must exist; it is resolved once, at open.
**
** options is NULL or a string of key=value pairs separated by ';' or ',':
**
**   options := item { sep item }      sep := ';' | ','
**   item    := ""  |  key '=' value
**
** Empty items are skipped ("a=1;;b=2;" and "" are valid).  No whitespace is
** allowed in a key or around a value ("max_readers= 4" is an error: a stray
** space is usually a quoting mistake).  A key may appear once; a second one
** is an error, never "last wins".  Unknown keys, malformed items and
** out-of-range values fail with DAL_E_OPTIONS.  Numbers are plain decimal
** integers.  The C++ shim parses the same grammar.
**
**   busy_timeout_ms=N      SQLite busy timeout per connection   (default 5000, 0..600000)
**   max_readers=N          read connections per database file   (default 8, 1..256)
**   stmt_cache=N           cached prepared statements per connection (default 64, 0..4096)
**   max_request_bytes=N    largest accepted request              (default 16777216, 64..1073741824)
**   max_response_bytes=N   largest response; a larger one ends the statement
**                          with DAL_E_LIMIT                      (default 67108864, 64..1073741824)
**   max_query_ms=N         SQLite execution time of one request; past it the
**                          statement is interrupted, a write rolled back,
**                          and the call fails with DAL_E_LIMIT.  0 = no limit.
**                          Checked every 1000 SQLite VM instructions; the time
**                          spent waiting for a lock is bounded by
**                          busy_timeout_ms instead            (default 30000, 0..86400000)
**   max_databases=N        databases (distinct "db" names) open at once on this
**                          handle.  Opening one more closes the idle database
**                          used least recently; a database a request is using
**                          is never closed.  When all are in use the request
**                          fails with DAL_E_LIMIT.  Each open database holds
**                          3 file descriptors per connection (file, WAL, shared
**                          memory), up to max_readers + 1 connections
**                                                                (default 64, 1..4096)
**   synchronous=off|normal|full   PRAGMA synchronous, case-insensitive
**                          (default normal; docs/durability.md says what each
**                          promises)
**
** Test-only options that plant a leak of N bytes per query in one layer, so
** that leak detectors can be shown to work (docs/leak-verdict.md):
**
**   plant_leak=go_cmem|go_heap|sqlite_stmt   ("" or none: no plant, the default)
**   plant_leak_bytes=N     0..1048576; absent or 0 means the default, 16
**
** and two that leak objects instead of bytes, one every N queries:
**
**   plant_leak=goroutine   a goroutine that never exits (blocked on a
**                          channel nobody closes), for the process's life
**   plant_leak=connection  PostgreSQL only: a connection to the primary,
**                          opened outside the pool and never used or closed
**                          until the handle closes.  Outside the pool, so no
**                          request ever waits for it; one the server refuses
**                          (max_connections) is not leaked, and the requests
**                          go on.  Keep queries/N under the server's
**                          max_connections minus pool_size
**   plant_leak_every=N     0..1048576; absent or 0 means the default: 1 for
**                          goroutine, 1000 for connection.  plant_leak_bytes
**                          does not apply to these two, nor plant_leak_every
**                          to the others (DAL_E_OPTIONS)
**
** POSTGRESQL
**
** A data_dir that starts with "postgres://" or "postgresql://" is not a
** directory but the URL of a PostgreSQL database:
**
**   postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=disable
**
** (libpq's URI form as pgx reads it: sslmode, connect parameters, and the
** PG* environment variables and ~/.pgpass for what the URL leaves out).
** A request's "db" then names a schema of that database, created on first
** use (docs/protocol.md, "On PostgreSQL", also for what differs).  dal_open
** connects once, so that an unreachable server or a refused login fails
** here: DAL_E_DATABASE, with a message that says which and never holds the
** password.  A URL that cannot be parsed is DAL_E_OPTIONS.
**
** stmt_cache (statements prepared on the server, per connection; 0 prepares
** every request anew), max_request_bytes, max_response_bytes, max_query_ms
** (the server's statement_timeout, per statement; a call also gives up
** 2000 ms after it when the server does not answer) and plant_leak=go_cmem,
** go_heap or goroutine apply, plant_leak=connection applies only here, and
** four options of PostgreSQL's own:
**
**   pool_size=N            connections to each server at most (default 8, 1..1024)
**   connect_timeout_ms=N   one connection attempt             (default 5000, 1..600000)
**   replicas=URL|URL...    read replicas (streaming standbys of the primary),
**                          separated by '|' (',' and ';' separate options; a
**                          ',' or ';' inside a URL must be percent-encoded).
**                          Each is connected at open, like the primary.
**                          A SELECT outside Tx goes to the replicas in turn;
**                          writes and Tx go to the primary.  A replica whose
**                          connection fails is skipped for 1 s and the read
**                          goes to the next one, then to the primary.
**                          Replication is asynchronous: a read may not yet
**                          see a write the primary acknowledged
**   read_primary=0|1       1: the primary takes its turn at reads too (default 0)
**
** busy_timeout_ms, max_readers, max_databases, synchronous and
** plant_leak=sqlite_stmt are SQLite's (plant_leak=connection fails on a
** directory): on a URL they fail with
** DAL_E_OPTIONS, as pool_size and connect_timeout_ms do on a directory.
**
** Returns a handle (> 0) or a negative DAL_E_* code.
*/
int64_t dal_open(const char *data_dir, const char *options);

/*
** Close a handle.  New calls on it fail with DAL_E_HANDLE at once; calls
** already running on other threads finish first, then every connection and
** statement is finalized.  Returns DAL_OK or DAL_E_HANDLE.
*/
int32_t dal_close(int64_t handle);

/*
** QUERY, ownership mode (a): the DAL allocates the response.
**
** Execute the MessagePack request req[0..req_len) and store a pointer to the
** response in *resp.  Returns the response length (>= 0) or a negative
** DAL_E_* code, in which case *resp is set to NULL.  The response is
** C-allocated by the DAL and must be released with dal_free(), exactly once.
*/
int64_t dal_query(int64_t handle, const void *req, size_t req_len, void **resp);

/*
** Release a response returned by dal_query().  dal_free(NULL) is a no-op and
** returns DAL_OK.  A pointer the DAL did not hand out, or one already freed,
** is not touched and yields DAL_E_MISUSE.
*/
int32_t dal_free(void *resp);

/*
** QUERY, ownership mode (b): the caller provides the buffer.
**
** Execute the request and copy the response into buf[0..buf_cap).  No memory
** is allocated per call on success.  Returns the response length n:
**
**   0 <= n <= buf_cap   the response is in buf[0..n).
**   n >  buf_cap        buf was too small; nothing was written.  The request
**                       WAS executed and its response is kept for the calling
**                       thread: fetch it with dal_take_pending() into a
**                       buffer of at least n bytes.  Never re-send the request
**                       to retry (a write would run twice).
**   n <  0              a DAL_E_* code.
**
** buf may be NULL when buf_cap is 0 (every response is then kept pending).
** A thread holds at most one pending response: a later too-small call
** replaces (and frees) an earlier pending response that was not taken.
*/
int64_t dal_query_into(int64_t handle, const void *req, size_t req_len, void *buf, size_t buf_cap);

/*
** Copy this thread's pending response into buf[0..buf_cap) and release it.
** Returns its length; if buf_cap is still too small the response stays
** pending and its length is returned unchanged (nothing written).  Returns
** DAL_E_MISUSE if the thread has no pending response.
*/
int64_t dal_take_pending(void *buf, size_t buf_cap);

/*
** EXEC (administration: schemas and migrations)
**
** Run the SQL text sql[0..sql_len) on the writer connection of database db
** (db[0..db_len), the name a request's "db" field would carry) of the
** handle, opening the database file on first use.  The query protocol has
** no DDL on purpose; this is how a caller creates its tables and indexes.
**
** NEVER PASS USER INPUT.  The text is run as given, with no parameters, no
** quoting and no restriction on what it does: it is for the application's
** own schema and migrations, written by the application.
**
** Semantics are those of sqlite3_exec(): the text may hold several
** statements, run in order; each commits on its own unless the text opens a
** transaction; result rows are discarded; the first failure stops the rest,
** and statements before it stay done.  A transaction the text leaves open
** (a failure after BEGIN, or BEGIN without COMMIT) is rolled back before
** the call returns.  Neither string needs a terminating NUL; a NUL byte
** inside sql[0..sql_len) fails with DAL_E_REQUEST (SQLite would silently
** stop there).  The call is not counted in DAL_STAT_QUERIES and plants no
** test leak.
**
** Returns DAL_OK or a negative code, with the message in dal_last_error():
**
**   DAL_E_HANDLE      handle not open
**   DAL_E_NULL        db or sql is NULL
**   DAL_E_REQUEST     invalid db name (the rules of docs/protocol.md),
**                     NUL byte in sql, or a transaction left open
**   DAL_E_TOO_LARGE   sql_len exceeds the handle's max_request_bytes
**   DAL_E_DATABASE    the database cannot be opened, or SQLite failed on the
**                     text: the message carries SQLite's own
**   DAL_E_LIMIT       the text ran past max_query_ms and was interrupted
**                     (the interrupted statement is rolled back), or
**                     max_databases is reached with every database in use
**
** On PostgreSQL the text runs in the schema of db (its search_path), as one
** simple-protocol query: without BEGIN/COMMIT in it, its statements form one
** implicit transaction, so a failure undoes the statements before it too.
** SQL errors carry the server's message and SQLSTATE.
**
** Added in dal.h 1.1.
*/
int32_t dal_exec(int64_t handle, const char *db, size_t db_len, const char *sql, size_t sql_len);

/*
** STATS
**
** Fill values[0..capacity) with process-wide counters, indexed by the
** DAL_STAT_* constants below, and return how many were written
** (min(capacity, DAL_STAT_COUNT)), or a negative DAL_E_* code.
**
** flags is 0 or DAL_STATS_FORCE_GC; any other bit fails with DAL_E_MISUSE,
** and so does a negative capacity.  values may be NULL only when capacity
** is 0 (DAL_E_NULL otherwise).  DAL_STATS_FORCE_GC runs a full Go garbage
** collection before reading, so that the Go heap figure shows live data
** rather than garbage not yet collected.  Reading Go memory statistics
** stops the Go world briefly (tens of microseconds): call it at sample
** points, not per query.
*/
#define DAL_STATS_FORCE_GC 1

/* clang-format off */
#define DAL_STAT_GO_HEAP_INUSE        0  /* bytes in in-use Go heap spans */
#define DAL_STAT_GO_HEAP_ALLOC        1  /* bytes of allocated Go heap objects */
#define DAL_STAT_GO_GC_CYCLES         2  /* completed Go GC cycles */
#define DAL_STAT_GO_SYS               3  /* bytes the Go runtime obtained from the OS */
#define DAL_STAT_HANDLES_LIVE         4  /* open handles */
#define DAL_STAT_BUFFERS_LIVE         5  /* DAL-allocated responses not yet freed, plus pending responses */
#define DAL_STAT_BUFFER_BYTES_LIVE    6  /* bytes held by those buffers */
#define DAL_STAT_SQLITE_MEMORY_USED   7  /* SQLite heap in use, all connections: what sqlite3_memory_used() would say, from the DAL's counting allocator (see dal_version_string) */
#define DAL_STAT_SQLITE_MEMORY_PEAK   8  /* the most DAL_STAT_SQLITE_MEMORY_USED has been (sqlite3_memory_highwater(0)) */
#define DAL_STAT_CONNECTIONS_OPEN     9  /* open SQLite connections and PostgreSQL server connections, all handles */
#define DAL_STAT_STATEMENTS_LIVE     10  /* prepared statements not finalized (SQLite) or not deallocated (PostgreSQL), all handles */
#define DAL_STAT_QUERIES             11  /* requests executed since load */
#define DAL_STAT_PLANTED_BYTES       12  /* bytes deliberately leaked by plant_leak options */
/* Added in dal.h 1.2; a 1.1 library writes only the 13 values above. */
#define DAL_STAT_GOROUTINES          13  /* live goroutines of the DAL's Go runtime (runtime.NumGoroutine), both backends */
#define DAL_STAT_PG_POOL_TOTAL       14  /* PostgreSQL: connections in the handles' pools, primary and replicas (pgxpool.Stat TotalConns) */
#define DAL_STAT_PG_POOL_IDLE        15  /* PostgreSQL: of those, idle in the pool (IdleConns) */
#define DAL_STAT_PG_POOL_ACQUIRED    16  /* PostgreSQL: of those, taken by a running request (AcquiredConns) */
#define DAL_STAT_PG_CONNECTIONS      17  /* PostgreSQL: connections the DAL holds open to any server, in a pool or not */
#define DAL_STAT_PG_SERVER_SESSIONS  18  /* PostgreSQL: rows of the servers' pg_stat_activity for those connections (below) */
#define DAL_STAT_PG_STATEMENTS       19  /* PostgreSQL: statements prepared on the servers and not deallocated */
#define DAL_STAT_PG_REPLICA_SKIPS    20  /* PostgreSQL: reads that passed over a read replica that was down, since load */
#define DAL_STAT_COUNT               21
/* clang-format on */

/*
** The DAL_STAT_PG_* values are -1 while no PostgreSQL handle is open in the
** process: those figures do not apply to SQLite, and -1 is not a count.
** Like the others they sum every open handle.
**
** DAL_STAT_PG_CONNECTIONS counts the pools' connections and those opened
** outside a pool (plant_leak=connection); DAL_STAT_CONNECTIONS_OPEN includes
** them too.  DAL_STAT_PG_SERVER_SESSIONS asks each server, in one query of
** pg_stat_activity, how many of the backend processes (pids) of those
** connections it still has: the server's view of the same connections.  It
** is asked only when capacity reaches it (a round trip per server, bounded
** by connect_timeout_ms + 2000 ms), on a connection of its own per server,
** opened on first use and closed with the handle, which is in no figure: a
** pool connection would make the pool grow, or wait, at exactly the moment
** it is measured.  -1 when a server did not answer.
** DAL_STAT_PG_STATEMENTS is what the connections' statement caches hold
** (at most stmt_cache per connection; DAL_STAT_STATEMENTS_LIVE counts them
** too): pg_prepared_statements shows only the session that reads it, so a
** sum over the pool would have to take each of its connections.
*/

int32_t dal_stats(int32_t flags, int64_t *values, int32_t capacity);

#ifdef __cplusplus
}
#endif

#endif /* DAL_H */
