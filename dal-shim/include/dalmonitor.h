/*
** dalmonitor.h -- C ABI of the stress kit's measurement core (libdalshim.so).
**
** One implementation of measurement and leak verdict for every driver: the
** native C++ driver, the Node addon, and Bun / Deno / koffi through FFI.
** Every parameter and return value is an integer, a double, a pointer or a
** size; no struct crosses the boundary and no function writes through an
** out-parameter except the caller's report buffer.
**
** CONVENTIONS (the same as dal.h)
**
** A run is a positive 64-bit id, never reused in the process.  Negative
** return values are DALMON_E_* codes; the message for the last failure on
** the calling thread is dalmon_last_error() (thread-local, like errno).  No
** input -- unknown run id, NULL, negative sizes -- crashes the process.
**
** A RUN, step by step (docs/leak-verdict.md)
**
**   run = dalmon_start("driver=bun-ffi;runtime=bun 1.2;queries=100000000;sample_every=1000000");
**   dalmon_mark_startup(run, -1, ns_from_process_start_to_first_answer);
**   force the runtime's GC;  dalmon_sample(run, 0, heapUsed, heapTotal, external, arrayBuffers);
**   loop: query, check the answer,
**         dalmon_record_latency_ns(run, ns)  (or a batch every N queries),
**         dalmon_count(run, n, request_bytes, response_bytes, errors) (batched),
**         every sample_every queries: yield to the event loop, force GC,
**         dalmon_sample(run, queries_done, ...);
**   after the last query: force GC, dalmon_sample(run, total, ...);
**   stopped early (Ctrl-C)?  dalmon_mark_interrupted(run, "SIGINT");
**   code = dalmon_finish(run);           -- 0 no leak, 1 leak, 2 error
**   print dalmon_report_text(...), dalmon_write_json(run, path);
**   dalmon_end(run);  exit(code).
**
** Native figures (Go heap after a forced Go GC, SQLite memory, live DAL and
** shim buffers, open statements) are read by the monitor itself at each
** dalmon_sample through the stats source the shim registers; RSS, malloc
** bytes in use and CPU time are read from the process.  Pass -1 for any JS
** figure the runtime does not have.
**
** THREADS
**
** dalmon_record_latency_ns, dalmon_record_latencies_ns and dalmon_count are
** lock-free and may be called from any thread: the run id is looked up
** without a lock (a few atomic operations) and the figures are added with
** relaxed atomics.  The other calls of one run belong to one controlling
** thread (they are still safe, only serialized).  dalmon_end waits for calls
** on that run still running on other threads.
*/
#ifndef DALMONITOR_H
#define DALMONITOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define DALMON_API __attribute__((visibility("default")))
#else
#define DALMON_API
#endif

/* major*1000000 + minor*1000 + patch; the major changes only with this ABI.
** 2: DALMON_E_* moved to -101..-110 (they reused DALSHIM_E_* numbers with
**    other meanings inside libdalshim.so); dalmon_mark_interrupted and the
**    run parameter verbose added.
** 2.1: run parameter unit=query|iteration (a --target counts iterations).
** 2.2: dalmon_borderline and dalmon_mark_confirmation (--confirm).
** 2.3: layers goroutines, pg_connections, pg_server_sessions, pg_statements
**      (and their slope.<layer>/growth.<layer> run parameters), from dal.h
**      1.2's stats. */
#define DALMON_VERSION_NUMBER 2003000
/* The JSON report's "version" field (docs/report-schema.md).  3: run.unit;
** the layers of the DAL are listed only when the DAL was loaded. */
#define DALMON_REPORT_SCHEMA_VERSION 3

/*
** Result codes.  They live in their own range, -101 and below, so that no
** number in libdalshim.so means two things: DALSHIM_E_* (dalshim.h) use -1..-10
** (the DAL_E_* values of dal.h) and -20..-28.  dalshim_code_name() names them.
*/
/* clang-format off */
#define DALMON_OK            0
#define DALMON_E_RUN      -101  /* unknown or ended run id */
#define DALMON_E_NULL     -102  /* a required pointer is NULL */
#define DALMON_E_PARAMS   -103  /* dalmon_start: bad key=value string (unknown key, bad value) */
#define DALMON_E_STATE    -104  /* wrong moment: sample after finish, report before finish */
#define DALMON_E_RANGE    -105  /* a value out of range: negative latency/count, queries going backwards */
#define DALMON_E_IO       -106  /* dalmon_write_json could not write the file */
#define DALMON_E_INTERNAL -108  /* an unexpected exception was caught; the process is intact */
#define DALMON_E_NOMEM    -109  /* allocation failed */
#define DALMON_E_LIMIT    -110  /* dalmon_start: too many runs alive at once (64); dalmon_end some */
/* clang-format on */

/* Exit codes returned by dalmon_finish and written in the reports. */
/* clang-format off */
#define DALMON_EXIT_NO_LEAK 0
#define DALMON_EXIT_LEAK    1
#define DALMON_EXIT_ERROR   2
/* clang-format on */

DALMON_API int32_t dalmon_version(void);

/* Message / code of this thread's most recent failed call ("" / 0 if none).
** The pointer stays valid until the next dalmon_ call on this thread. */
DALMON_API const char *dalmon_last_error(void);
DALMON_API int32_t dalmon_last_error_code(void);

/*
** Start a run.  params_kv is NULL or "key=value" pairs separated by ';' or ','
** (the grammar of dal_open's options: no whitespace around keys or values,
** no key twice; docs/report-schema.md lists every key):
**   driver, runtime, mode   free text for the report
**   queries=N               planned queries (fewer answered = exit code 2)
**   sample_every=N          queries between samples (default queries/100)
**   warmup=F                warm-up share 0..0.9 (default 0.2)
**   threads=N               driver threads (for the report)
**   unit=query|iteration    what the driver counts (default query; a --target
**                           counts iterations): the reports' words only
**   force_gc=0|1            Go GC before each native sample (default 1)
**   verbose=0|1             the text report also lists every sample
**                           (START, ITERATION n, END blocks); default 0,
**                           the series is then in the JSON report only
**   min_samples=N           post-warm-up samples needed for a verdict (default 6)
**   slope.<layer>=F         leak slope limit, units per query
**   growth.<layer>=F        leak minimum growth after warm-up, units
** Integers accept "1e8" and "100_000_000".  Returns a run id (> 0) or
** DALMON_E_PARAMS / DALMON_E_LIMIT / DALMON_E_NOMEM.
*/
DALMON_API int64_t dalmon_start(const char *params_kv);

/* rss_after_load < 0: the monitor reads RSS now.  ns_to_first_query < 0: unknown. */
DALMON_API int32_t dalmon_mark_startup(int64_t run, int64_t rss_after_load, int64_t ns_to_first_query);

/* Take a sample (after forcing the runtime's GC).  Returns the sample index
** (>= 0; 0 is START) or a DALMON_E_* code.  queries_done must not decrease. */
DALMON_API int32_t dalmon_sample(int64_t run, int64_t queries_done, int64_t js_heap_used, int64_t js_heap_total,
                                 int64_t js_external, int64_t js_array_buffers);

/* Record one latency, or count latencies at ns[0..count), in nanoseconds.
** Negative latencies are rejected (DALMON_E_RANGE; in a batch none is recorded). */
DALMON_API int32_t dalmon_record_latency_ns(int64_t run, int64_t ns);
DALMON_API int32_t dalmon_record_latencies_ns(int64_t run, const int64_t *ns, size_t count);

/* Add to the run's totals: answered queries, request bytes, response bytes,
** errors (failed calls and wrong answers).  Any error makes the exit code 2. */
DALMON_API int32_t dalmon_count(int64_t run, int64_t queries, int64_t bytes_in, int64_t bytes_out, int64_t errors);

/* Declare the run failed with a reason (exit code 2).  reason may be NULL. */
DALMON_API int32_t dalmon_fail(int64_t run, const char *reason);

/*
** Declare the run interrupted: the driver stopped before all planned queries
** were issued (Ctrl-C, SIGTERM, a time limit).  Call it after the END sample
** and before dalmon_finish.  The exit code is then 2 (an incomplete run is
** no proof of "no leak"), and the report says so truthfully:
**   ERROR: interrupted (<cause>) after 450,000 of 1,000,000 planned queries
** instead of "missing answers".  Every layer with at least min_samples
** samples after warm-up still gets its verdict, marked "partial" (text:
** "no leak (partial)"; JSON: layers[].partial, verdict.partial); the others
** are "insufficient", with "a verdict needs at least M samples after
** warm-up".  A run that merely answered fewer queries than planned without
** this call is judged the same way but reported as "missing answers".
** cause is NULL or a short text for the report such as "SIGINT".
** Returns DALMON_OK, DALMON_E_RUN, or DALMON_E_STATE after dalmon_finish.
*/
DALMON_API int32_t dalmon_mark_interrupted(int64_t run, const char *cause);

/* Freeze the run, compute the verdict, return the exit code (0, 1, 2) or a
** negative DALMON_E_* code.  Idempotent. */
DALMON_API int32_t dalmon_finish(int64_t run);

/*
** Borderline: after dalmon_finish, 1 if the verdict is close to its
** thresholds, so that a longer run of the same work could turn it over
** (docs/leak-verdict.md, "Borderline verdicts"), else 0; DALMON_E_STATE
** before dalmon_finish.  A run with an error (exit code 2) is never
** borderline.  The reports name the borderline layers and why.
**
** --confirm in every driver: when a run is borderline, run the same work
** again with twice the queries in a new run, and before finishing that run
** call dalmon_mark_confirmation(new_run, first_run) while first_run is
** finished and not yet ended.  The new run's reports (text, JSON, HTML)
** then say that it confirms first_run, with first_run's planned queries,
** verdict and borderline layers, and that the new run's verdict stands;
** its dalmon_finish is the exit code.  Returns DALMON_OK, DALMON_E_RUN,
** DALMON_E_RANGE (run == first_run) or DALMON_E_STATE (run finished, or
** first_run not finished).
*/
DALMON_API int32_t dalmon_borderline(int64_t run);
DALMON_API int32_t dalmon_mark_confirmation(int64_t run, int64_t first_run);

/*
** Copy the report (after dalmon_finish) into buf[0..cap) and return its
** length n in bytes, without terminator.  If n > cap nothing is written: call
** again with cap >= n.  When n < cap a NUL is appended, so cap = n + 1 gives a
** C string.  buf may be NULL when cap is 0 (length query).  The text is
** rendered once and cached, so both calls see the same bytes.
*/
DALMON_API int64_t dalmon_report_text(int64_t run, char *buf, size_t cap);
DALMON_API int64_t dalmon_report_json(int64_t run, char *buf, size_t cap);

/* Write the JSON report (after dalmon_finish) to path.  DALMON_OK or a code. */
DALMON_API int32_t dalmon_write_json(int64_t run, const char *path);

/* Forget the run and free it.  Calls still running on other threads finish
** safely; later calls with this id get DALMON_E_RUN. */
DALMON_API int32_t dalmon_end(int64_t run);

/* Helpers for runtimes without a cheap clock or RSS reader:
** CLOCK_MONOTONIC in ns, and this process's RSS in bytes (-1 if unknown). */
DALMON_API int64_t dalmon_now_ns(void);
DALMON_API int64_t dalmon_rss_bytes(void);

#ifdef __cplusplus
}
#endif

#endif /* DALMONITOR_H */
