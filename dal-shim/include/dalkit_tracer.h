/*
** dalkit_tracer.h -- C ABI of libdalkit_tracer.so, the preloadable
** allocation tracer that names the shared object (DSO) whose memory is live.
**
** The tracer is loaded with LD_PRELOAD.  It wraps malloc, calloc, realloc,
** free, posix_memalign, aligned_alloc, memalign, valloc, pvalloc and
** malloc_usable_size, and anonymous mmap / mmap64 / mremap / munmap, and
** charges every allocation it records to the CALLING DSO: the first return
** address on the stack outside libc, libstdc++, libgcc_s, the dynamic loader
** and the tracer itself, mapped to a file through /proc/self/maps.  A block
** stays charged to that DSO until it is freed, whoever frees it.
** docs/attribution.md explains the choice of DSO, the sampling and the costs.
**
** CONVENTIONS
**
** Every parameter and return value is an integer or a pointer; no struct
** crosses the boundary (friendly to bun:ffi, Deno.dlopen, koffi and
** dlsym()).  Negative return values are DALKIT_TRACER_E_* codes.  No
** function allocates memory, takes a lock a hook could wait on, or crashes
** on any input.
**
** FINDING THE TRACER
**
** A process started with LD_PRELOAD=.../libdalkit_tracer.so has these
** functions in its global scope, so a monitor looks them up at run time:
**
**   int32_t (*version)(void) = dlsym(RTLD_DEFAULT, "dalkit_tracer_version");
**   if (version == NULL) -> no tracer: the attribution layers are n/a.
**
** DSO TABLE
**
** DSOs are numbered 0 .. dalkit_tracer_dso_count()-1 in the order they were
** first seen; an index is never reused or renumbered, so a monitor may keep
** series per index.  Index 0 is "[unknown]" (no usable return address) and
** index 1 is "[anon]" (anonymous executable memory: JIT code, FFI
** trampolines).  The main executable is listed under its file name (node,
** bun.exe, deno) with the DALKIT_TRACER_FLAG_MAIN flag.
**
** SAMPLED AND EXACT MODE (environment, read once at start-up)
**
**   DALKIT_TRACER_SAMPLE_BYTES=N   mean bytes between sampled allocations
**                                  (suffix k or m: KiB, MiB); 0 = exact mode,
**                                  every allocation recorded.  Default 64k.
**   DALKIT_TRACER_SEED=N           seed of the per-thread samplers (tests)
**   DALKIT_TRACER_TABLE_SLOTS=N    slots of the live-block table (default
**                                  65536 sampled, 4194304 exact)
**   DALKIT_TRACER_SKIP=a,b         more DSO name prefixes to look through,
**                                  like libc (an allocation wrapper library)
**   DALKIT_TRACER_REPORT=stderr|PATH  print the DSO table at exit
**
** In sampled mode the byte and count figures are unbiased estimates (each
** sampled block weighs size/p, p its probability of being sampled); every
** estimate is added and later subtracted with the same weight, so a DSO
** whose blocks are all freed returns exactly to its baseline.  mmap figures
** are always exact.
**
** THREADS
**
** Every function may be called from any thread at any time.  The figures
** are read with relaxed atomic loads: a snapshot taken while other threads
** allocate is a consistent value per field, not across fields.
*/
#ifndef DALKIT_TRACER_H
#define DALKIT_TRACER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define DALKIT_TRACER_API __attribute__((visibility("default")))
#else
#define DALKIT_TRACER_API
#endif

/* major*1000000 + minor*1000 + patch; the major changes only with this ABI. */
#define DALKIT_TRACER_VERSION_NUMBER 2000000

/* Result codes, in their own range (dal.h, dalshim.h and dalmonitor.h use
** -1..-110). */
/* clang-format off */
#define DALKIT_TRACER_E_RANGE -201  /* a DSO index or stat index out of range */
#define DALKIT_TRACER_E_NULL  -202  /* a required pointer is NULL */
#define DALKIT_TRACER_E_IO    -203  /* dalkit_tracer_report_fd could not write */
/* clang-format on */

/* Per-DSO figures: dalkit_tracer_dso_stat(i, stat), and the columns of one
** dalkit_tracer_snapshot row, in this order. */
/* clang-format off */
#define DALKIT_TRACER_LIVE_BYTES    0  /* malloc-family bytes live (requested sizes) */
#define DALKIT_TRACER_LIVE_ALLOCS   1  /* malloc-family blocks live */
#define DALKIT_TRACER_ALLOCS        2  /* blocks allocated since start */
#define DALKIT_TRACER_FREES         3  /* of those, blocks freed (by any DSO) */
#define DALKIT_TRACER_MMAP_BYTES    4  /* anonymous, not PROT_NONE, mapped bytes live (exact) */
#define DALKIT_TRACER_MMAP_REGIONS  5  /* anonymous regions live (exact) */
#define DALKIT_TRACER_SAMPLES_LIVE  6  /* recorded blocks live (the estimates' support; exact mode: = LIVE_ALLOCS) */
#define DALKIT_TRACER_FLAGS         7  /* DALKIT_TRACER_FLAG_* bits */
#define DALKIT_TRACER_MMAP_RESIDENT 8  /* of MMAP_BYTES, the bytes in resident pages now (mincore, when read):
                                   ** an allocator's or library's read-write reservation counts what it touched */
#define DALKIT_TRACER_STAT_COUNT    9  /* columns per snapshot row */
/* clang-format on */

/* DALKIT_TRACER_FLAGS bits. */
/* clang-format off */
#define DALKIT_TRACER_FLAG_MAIN    1  /* the main executable (the runtime: node, bun, deno) */
#define DALKIT_TRACER_FLAG_SKIPPED 2  /* looked through when choosing a DSO (libc, libstdc++, ...):
                                      ** charged only when no other DSO is on the stack */
#define DALKIT_TRACER_FLAG_PSEUDO  4  /* "[unknown]", "[anon]", "[vdso]": no file */
/* clang-format on */

/* Process-wide figures: dalkit_tracer_stat(stat). */
/* clang-format off */
#define DALKIT_TRACER_SAMPLE_BYTES     0  /* 0 exact, N mean bytes between samples */
#define DALKIT_TRACER_ACTIVE           1  /* 1 once the tracer records (after its constructor) */
#define DALKIT_TRACER_DROPPED          2  /* blocks not recorded: the live-block table was full */
#define DALKIT_TRACER_MMAP_DROPPED     3  /* regions not recorded: the region table was full */
#define DALKIT_TRACER_MAPS_REFRESHES   4  /* reads of /proc/self/maps */
#define DALKIT_TRACER_UNWINDS          5  /* stack walks (return address in a looked-through DSO) */
#define DALKIT_TRACER_TABLE_SLOTS      6  /* slots of the live-block table */
#define DALKIT_TRACER_PROCESS_STAT_COUNT 7
/* clang-format on */

DALKIT_TRACER_API int32_t dalkit_tracer_version(void);

/* Process-wide figure (DALKIT_TRACER_SAMPLE_BYTES ...) or DALKIT_TRACER_E_RANGE. */
DALKIT_TRACER_API int64_t dalkit_tracer_stat(int32_t stat);

/* Number of DSOs seen so far (>= 2: "[unknown]" and "[anon]"). */
DALKIT_TRACER_API int32_t dalkit_tracer_dso_count(void);

/* File name (basename, e.g. "libdal.so") or full path of DSO i; NULL when i
** is out of range.  The strings live as long as the process. */
DALKIT_TRACER_API const char *dalkit_tracer_dso_name(int32_t i);
DALKIT_TRACER_API const char *dalkit_tracer_dso_path(int32_t i);

/* One figure of DSO i (DALKIT_TRACER_LIVE_BYTES ...), or DALKIT_TRACER_E_RANGE. */
DALKIT_TRACER_API int64_t dalkit_tracer_dso_stat(int32_t i, int32_t stat);

/*
** Copy every DSO's figures into out[0 .. rows*DALKIT_TRACER_STAT_COUNT):
** row i is DSO i, its columns DALKIT_TRACER_LIVE_BYTES .. DALKIT_TRACER_FLAGS.
** Returns the number of DSOs, which may exceed rows (only rows rows are
** written: call again with more), or DALKIT_TRACER_E_NULL / _E_RANGE
** (out NULL with rows > 0, rows < 0).
*/
DALKIT_TRACER_API int32_t dalkit_tracer_snapshot(int64_t *out, int32_t rows);

/* Write the DSO table (what DALKIT_TRACER_REPORT prints at exit) to the
** file descriptor fd.  Returns 0 or DALKIT_TRACER_E_IO. */
DALKIT_TRACER_API int32_t dalkit_tracer_report_fd(int32_t fd);

#ifdef __cplusplus
}
#endif

#endif /* DALKIT_TRACER_H */
