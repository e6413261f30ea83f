/* SQLite's process-wide configuration, for no global mutex on the hot path.
**
** - Multi-thread mode: the engine never uses a connection from two threads
**   at once (one query holds it, through the reader pool or the writer
**   lock), so connections need no mutex. Connections are also opened with
**   SQLITE_OPEN_NOMUTEX, which gives them that much even when this
**   configuration could not be applied.
** - Memory statistics off: with them on, every sqlite3_malloc and free takes
**   the global memory mutex to update the counters. The DAL still needs the
**   exact "SQLite memory in use" figure (dal_stats, the leak monitor), so a
**   counting allocator wraps the one SQLite would use (SQLITE_CONFIG_GETMALLOC,
**   normally the system malloc) and keeps the same count, the sum of xSize()
**   of live allocations, in relaxed atomics: a total, not an ordering, is
**   all a reader needs.
**
** sqlite3_config() refuses (SQLITE_MISUSE) once SQLite is initialized: when
** the host or another library in the process used the same libsqlite3
** first. The DAL then keeps that configuration and reads the memory figure
** from sqlite3_memory_used(); dal_version_string() says which case holds. */
#include "config.h"

#include <sqlite3.h>
#include <stddef.h>

static sqlite3_mem_methods base; /* the allocator wrapped */
static int64_t used, peak;       /* __atomic, relaxed */

static void count(int64_t delta) {
  int64_t now = __atomic_add_fetch(&used, delta, __ATOMIC_RELAXED);
  int64_t max = __atomic_load_n(&peak, __ATOMIC_RELAXED);
  while (now > max && !__atomic_compare_exchange_n(&peak, &max, now, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
}

static void *counted_malloc(int n) {
  void *p = base.xMalloc(n);
  if (p) count(base.xSize(p));
  return p;
}

static void counted_free(void *p) {
  if (p) __atomic_sub_fetch(&used, base.xSize(p), __ATOMIC_RELAXED);
  base.xFree(p);
}

/* SQLite never passes NULL here (sqlite3Realloc calls xMalloc instead). */
static void *counted_realloc(void *p, int n) {
  int before = base.xSize(p);
  void *q = base.xRealloc(p, n);
  if (q) count((int64_t)base.xSize(q) - before);
  return q;
}

static int counted_size(void *p) { return base.xSize(p); }
static int counted_roundup(int n) { return base.xRoundup(n); }
static int counted_init(void *app) {
  (void)app;
  return base.xInit(base.pAppData);
}
static void counted_shutdown(void *app) {
  (void)app;
  base.xShutdown(base.pAppData);
}

static const sqlite3_mem_methods counting = {
    counted_malloc, counted_free, counted_realloc, counted_size, counted_roundup, counted_init, counted_shutdown, NULL,
};

int dal_sqlite_configure(int keep_memstatus) {
  int cfg = 0;
  /* Each call fails with SQLITE_MISUSE alone if SQLite is initialized
  ** already; then none has been applied and the first one says so. */
  if (sqlite3_config(SQLITE_CONFIG_MULTITHREAD) == SQLITE_OK) cfg |= DAL_CFG_MULTITHREAD;
  if (cfg && !keep_memstatus && sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK) cfg |= DAL_CFG_NO_MEMSTATUS;
  if (cfg && sqlite3_config(SQLITE_CONFIG_GETMALLOC, &base) == SQLITE_OK && base.xMalloc &&
      sqlite3_config(SQLITE_CONFIG_MALLOC, &counting) == SQLITE_OK)
    cfg |= DAL_CFG_COUNTING;
  if (cfg && !(cfg & DAL_CFG_COUNTING) && (cfg & DAL_CFG_NO_MEMSTATUS)) {
    /* No exact count without either: keep SQLite's own. */
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1);
    cfg &= ~DAL_CFG_NO_MEMSTATUS;
  }
  int rc = sqlite3_initialize();
  if (rc != SQLITE_OK) return -1 - rc;
  return cfg;
}

int64_t dal_sqlite_counted_used(void) { return __atomic_load_n(&used, __ATOMIC_RELAXED); }
int64_t dal_sqlite_counted_peak(void) { return __atomic_load_n(&peak, __ATOMIC_RELAXED); }
