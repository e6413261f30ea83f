/* Process-wide SQLite configuration, applied once before SQLite is first
** initialized; config.c says what and why. */
#ifndef DAL_SQLITE_CONFIG_H
#define DAL_SQLITE_CONFIG_H
#include <stdint.h>

/* What dal_sqlite_configure() put in effect (bits). */
#define DAL_CFG_MULTITHREAD  1 /* SQLITE_CONFIG_MULTITHREAD */
#define DAL_CFG_NO_MEMSTATUS 2 /* SQLITE_CONFIG_MEMSTATUS off */
#define DAL_CFG_COUNTING     4 /* the counting allocator is installed */

/* Configures SQLite and initializes it; returns the DAL_CFG_ bits in
** effect, 0 when SQLite had already been initialized in this process (its
** configuration is then left as it was), or -1 - rc when sqlite3_initialize
** failed with rc. keep_memstatus leaves memory statistics on (tests compare
** the counting allocator with them). Not thread-safe, as sqlite3_config is
** not: the Go side calls it once, before any other SQLite call. */
int dal_sqlite_configure(int keep_memstatus);

/* Bytes held through the counting allocator now, and at most so far. */
int64_t dal_sqlite_counted_used(void);
int64_t dal_sqlite_counted_peak(void);
#endif
