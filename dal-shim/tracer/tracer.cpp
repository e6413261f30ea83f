// tracer.cpp -- libdalkit_tracer.so: a preloadable allocation tracer that
// charges live memory to the shared object (DSO) that allocated it
// (include/dalkit_tracer.h is the C ABI, docs/attribution.md the design).
//
// Rules every line here follows, because this code runs INSIDE malloc:
//  - nothing here allocates: no C++ runtime (built -fno-exceptions -fno-rtti,
//    linked without libstdc++), no stdio, no getenv copies; fixed static
//    tables and one mmap'd table;
//  - the hooks never recurse into the accounting: a thread-local guard is
//    set while the tracer walks the stack or reads /proc/self/maps, and any
//    allocation made meanwhile (libgcc's unwinder, the loader) passes
//    through unrecorded;
//  - no tracer lock is held while calling into the unwinder or the loader
//    (they take the loader's locks, and a thread holding those may be inside
//    malloc); the tracer's own locks guard only memory copies and syscalls.
#include "dalkit_tracer.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <sched.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <unwind.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#define TRACER_HOOK extern "C" __attribute__((visibility("default")))
// Initial-exec TLS: the tracer is preloaded, so its thread-locals live in the
// static TLS block and reading them never calls __tls_get_addr (which may
// allocate).
#define TRACER_TLS __attribute__((tls_model("initial-exec")))

namespace {

// ---------------------------------------------------------------------------
// Configuration (read once, in init_tracking, before tracking is enabled).

constexpr int64_t kDefaultSampleBytes = 64 * 1024;
constexpr uint64_t kDefaultSampledSlots = uint64_t{1} << 16;  // 1 MiB
constexpr uint64_t kDefaultExactSlots = uint64_t{1} << 22;    // 64 MiB virtual
constexpr int kWindow = 16;                                   // slots probed per key
constexpr int kMaxDsos = 1024;
constexpr int kMaxRanges = 8192;
constexpr int kMaxRegions = 8192;
constexpr int kMaxSkipRanges = 32;
constexpr int kMaxFrames = 64;
constexpr int64_t kRefreshIntervalNs = 50 * 1000 * 1000;  // misses re-read maps at most this often
                                                          // unless a DSO was loaded meanwhile

int64_t g_sample_bytes = kDefaultSampleBytes;  // 0: exact
bool g_exact = false;
double g_sample_mean = double(kDefaultSampleBytes);
uint64_t g_seed = 0;
bool g_seeded = false;
char g_report[512];     // "" none, "stderr", or a path
char g_skip_env[1024];  // DALKIT_TRACER_SKIP, commas replaced by NULs
int g_skip_env_len = 0;
std::atomic<bool> g_enabled{false};  // set once, last thing of the constructor

// ---------------------------------------------------------------------------
// The real functions, found with dlsym(RTLD_NEXT) on first use.  dlsym itself
// may call calloc/malloc: while this thread resolves, they are served from a
// static arena (never freed, never reused).

using MallocFn = void* (*)(size_t);
using CallocFn = void* (*)(size_t, size_t);
using ReallocFn = void* (*)(void*, size_t);
using FreeFn = void (*)(void*);
using PosixMemalignFn = int (*)(void**, size_t, size_t);
using AlignedFn = void* (*)(size_t, size_t);
using UsableFn = size_t (*)(void*);
using MmapFn = void* (*)(void*, size_t, int, int, int, off_t);
using MunmapFn = int (*)(void*, size_t);
using MremapFn = void* (*)(void*, size_t, size_t, int, ...);

struct Real {
  MallocFn malloc;
  CallocFn calloc;
  ReallocFn realloc;
  FreeFn free;
  PosixMemalignFn posix_memalign;
  AlignedFn aligned_alloc;
  AlignedFn memalign;
  MallocFn valloc;
  MallocFn pvalloc;
  UsableFn malloc_usable_size;
  MmapFn mmap;
  MmapFn mmap64;
  MunmapFn munmap;
  MremapFn mremap;
};
Real g_real;
std::atomic<int> g_real_state{0};  // 0 unresolved, 1 resolving, 2 resolved

struct ThreadState {
  int64_t until_sample;  // bytes left before the next sampled allocation
  uint64_t rng;
  uint8_t guard;      // inside the tracer's slow path: record nothing
  uint8_t resolving;  // inside dlsym(RTLD_NEXT): serve from the arena
  uint8_t sampler_ready;
};
__thread ThreadState t_state TRACER_TLS;

alignas(64) unsigned char g_arena[256 * 1024];
std::atomic<size_t> g_arena_used{0};

bool in_arena(const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  auto base = reinterpret_cast<uintptr_t>(g_arena);
  return a >= base && a < base + sizeof g_arena;
}

// Blocks are 16-aligned (or `align`) with their size in the 16 bytes before.
void* arena_alloc(size_t size, size_t align = 16) {
  if (align < 16) align = 16;
  size_t need = size + align + 16;
  size_t start = g_arena_used.fetch_add(need, std::memory_order_relaxed);
  if (start + need > sizeof g_arena) return nullptr;  // bootstrap needs a few hundred bytes
  auto base = reinterpret_cast<uintptr_t>(g_arena) + start + 16;
  base = (base + align - 1) & ~(uintptr_t(align) - 1);
  reinterpret_cast<size_t*>(base)[-1] = size;
  return reinterpret_cast<void*>(base);
}
size_t arena_size(const void* p) { return reinterpret_cast<const size_t*>(p)[-1]; }

template <typename T>
T next_symbol(const char* name) {
  return reinterpret_cast<T>(dlsym(RTLD_NEXT, name));
}

// Returns true when the real functions can be called; false while this very
// thread is inside dlsym (the caller then uses the arena).
bool ensure_real() {
  int state = g_real_state.load(std::memory_order_acquire);
  if (state == 2) return true;
  if (t_state.resolving) return false;
  int expected = 0;
  if (g_real_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    t_state.resolving = 1;
    Real r{};
    r.malloc = next_symbol<MallocFn>("malloc");
    r.calloc = next_symbol<CallocFn>("calloc");
    r.realloc = next_symbol<ReallocFn>("realloc");
    r.free = next_symbol<FreeFn>("free");
    r.posix_memalign = next_symbol<PosixMemalignFn>("posix_memalign");
    r.aligned_alloc = next_symbol<AlignedFn>("aligned_alloc");
    r.memalign = next_symbol<AlignedFn>("memalign");
    r.valloc = next_symbol<MallocFn>("valloc");
    r.pvalloc = next_symbol<MallocFn>("pvalloc");
    r.malloc_usable_size = next_symbol<UsableFn>("malloc_usable_size");
    r.mmap = next_symbol<MmapFn>("mmap");
    r.mmap64 = next_symbol<MmapFn>("mmap64");
    r.munmap = next_symbol<MunmapFn>("munmap");
    r.mremap = next_symbol<MremapFn>("mremap");
    if (!r.mmap64) r.mmap64 = r.mmap;
    g_real = r;
    t_state.resolving = 0;
    g_real_state.store(2, std::memory_order_release);
    return true;
  }
  while (g_real_state.load(std::memory_order_acquire) != 2) sched_yield();
  return true;
}

// ---------------------------------------------------------------------------
// Small helpers that allocate nothing.

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

class SpinLock {
 public:
  void lock() {
    while (flag_.exchange(true, std::memory_order_acquire)) {
      while (flag_.load(std::memory_order_relaxed)) sched_yield();
    }
  }
  bool try_lock() { return !flag_.exchange(true, std::memory_order_acquire); }
  void unlock() { flag_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> flag_{false};
};

struct Guard {
  Guard() : saved_(t_state.guard) { t_state.guard = 1; }
  ~Guard() { t_state.guard = saved_; }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;

 private:
  uint8_t saved_;
};

void copy_str(char* dst, size_t cap, const char* src, size_t len) {
  if (len >= cap) len = cap - 1;
  memcpy(dst, src, len);
  dst[len] = '\0';
}

bool starts_with(const char* s, const char* prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

// "123", "64k", "2m"; false on anything else.
bool parse_size(const char* s, int64_t& out) {
  if (!s || !*s) return false;
  int64_t v = 0;
  const char* p = s;
  for (; *p >= '0' && *p <= '9'; ++p) {
    if (v > (int64_t{1} << 50)) return false;
    v = v * 10 + (*p - '0');
  }
  if (p == s) return false;
  int shift = 0;
  if (*p == 'k' || *p == 'K') shift = 10;
  if (*p == 'm' || *p == 'M') shift = 20;
  if (shift) ++p;
  if (*p) return false;
  v <<= shift;
  out = v;
  return true;
}

void write_all(int fd, const char* s, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    s += w;
    n -= size_t(w);
  }
}
void write_str(int fd, const char* s) { write_all(fd, s, strlen(s)); }

// ---------------------------------------------------------------------------
// DSOs: append-only, never renumbered.  Fields other than the counters are
// written before g_dso_count publishes the entry (release).

struct alignas(64) Dso {
  char path[512];
  char name[128];
  int64_t flags;
  std::atomic<int64_t> live_bytes{0};
  std::atomic<int64_t> live_allocs{0};
  std::atomic<int64_t> allocs{0};
  std::atomic<int64_t> frees{0};
  std::atomic<int64_t> mmap_bytes{0};
  std::atomic<int64_t> mmap_regions{0};
  std::atomic<int64_t> samples_live{0};
};
Dso g_dsos[kMaxDsos];
std::atomic<int32_t> g_dso_count{0};
constexpr int32_t kUnknownDso = 0;
constexpr int32_t kAnonDso = 1;

char g_self_path[512];  // the tracer's own file
char g_exe_path[512];   // /proc/self/exe

std::atomic<int64_t> g_dropped{0};
std::atomic<int64_t> g_mmap_dropped{0};
std::atomic<int64_t> g_refreshes{0};
std::atomic<int64_t> g_unwinds{0};

const char* base_name(const char* path) {
  const char* slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

bool name_is_skipped(const char* name) {
  static const char* const kSkipped[] = {"libc.so",   "libstdc++.so", "libgcc_s.so",         "ld-linux",
                                         "libc++.so", "libc++abi.so", "libpthread.so",       "libdl.so",
                                         "libm.so",   "libunwind.so", "libc_malloc_debug.so"};
  for (const char* s : kSkipped) {
    if (starts_with(name, s)) return true;
  }
  for (int i = 0; i < g_skip_env_len;) {
    const char* s = g_skip_env + i;
    size_t n = strlen(s);
    if (n > 0 && starts_with(name, s)) return true;
    i += int(n) + 1;
  }
  return false;
}

// Called with g_maps_lock held (the only writer).
int32_t find_or_add_dso(const char* path, size_t len, bool pseudo) {
  int32_t n = g_dso_count.load(std::memory_order_acquire);
  size_t cmp = len < sizeof g_dsos[0].path - 1 ? len : sizeof g_dsos[0].path - 1;  // stored paths are cut there
  for (int32_t i = 0; i < n; ++i) {
    if (strncmp(g_dsos[i].path, path, cmp) == 0 && g_dsos[i].path[cmp] == '\0') return i;
  }
  if (n >= kMaxDsos) return kUnknownDso;
  Dso& d = g_dsos[n];
  copy_str(d.path, sizeof d.path, path, len);
  const char* name = base_name(d.path);
  copy_str(d.name, sizeof d.name, name, strlen(name));
  int64_t flags = 0;
  if (pseudo) flags |= DALKIT_TRACER_FLAG_PSEUDO;
  if (g_exe_path[0] && strcmp(d.path, g_exe_path) == 0) flags |= DALKIT_TRACER_FLAG_MAIN;
  if ((g_self_path[0] && strcmp(d.path, g_self_path) == 0) || (!pseudo && name_is_skipped(d.name))) {
    flags |= DALKIT_TRACER_FLAG_SKIPPED;
  }
  d.flags = flags;
  g_dso_count.store(n + 1, std::memory_order_release);
  return n;
}

// ---------------------------------------------------------------------------
// Executable address ranges -> DSO, from /proc/self/maps.  Readers use a
// seqlock (no lock, retry while a refresh publishes); the refresher parses
// into a staging array under g_maps_lock and then copies it in.

struct Range {
  uintptr_t start;
  uintptr_t end;
  int32_t dso;
};
Range g_ranges[kMaxRanges];
std::atomic<int32_t> g_range_count{0};
std::atomic<uint64_t> g_ranges_seq{0};
Range g_staging[kMaxRanges];
SpinLock g_maps_lock;
std::atomic<int64_t> g_last_refresh_ns{0};
std::atomic<uint64_t> g_seen_adds{0};
char g_maps_buf[64 * 1024];

// Functions of a DSO we must look through although their DSO is not skipped
// (operator new/delete of a libstdc++ linked statically into an executable).
struct SkipRange {
  uintptr_t start;
  uintptr_t end;
};
SkipRange g_skip_ranges[kMaxSkipRanges];
int g_skip_range_count = 0;

uintptr_t parse_hex(const char*& p, const char* end) {
  uintptr_t v = 0;
  for (; p < end; ++p) {
    char c = *p;
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) break;
    v = v * 16 + uintptr_t(d);
  }
  return v;
}

// One line "start-end perms offset dev inode   path"; keeps executable ones.
void parse_maps_line(const char* line, const char* end, int32_t& n) {
  const char* p = line;
  uintptr_t start = parse_hex(p, end);
  if (p >= end || *p != '-') return;
  ++p;
  uintptr_t stop = parse_hex(p, end);
  if (p + 5 > end || *p != ' ') return;
  bool exec = p[3] == 'x';
  if (!exec || n >= kMaxRanges) return;
  // Skip perms, offset, dev, inode: four space-separated fields.
  for (int field = 0; field < 4; ++field) {
    while (p < end && *p == ' ') ++p;
    while (p < end && *p != ' ') ++p;
  }
  while (p < end && *p == ' ') ++p;
  int32_t dso;
  if (p >= end) {
    dso = kAnonDso;
  } else {
    dso = find_or_add_dso(p, size_t(end - p), *p == '[');
  }
  g_staging[n++] = Range{start, stop, dso};
}

uint64_t loader_adds() {
  uint64_t adds = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        *static_cast<uint64_t*>(data) = info->dlpi_adds;
        return 1;
      },
      &adds);
  return adds;
}

// Reads /proc/self/maps into the range table.  Syscalls only (no loader
// lock), under g_maps_lock.
void refresh_maps_locked() {
  int fd = int(syscall(SYS_openat, AT_FDCWD, "/proc/self/maps", O_RDONLY | O_CLOEXEC));
  if (fd < 0) return;
  int32_t n = 0;
  size_t have = 0;
  for (;;) {
    ssize_t r = syscall(SYS_read, fd, g_maps_buf + have, sizeof g_maps_buf - have);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    have += size_t(r);
    size_t line_start = 0;
    for (size_t i = 0; i < have; ++i) {
      if (g_maps_buf[i] == '\n') {
        parse_maps_line(g_maps_buf + line_start, g_maps_buf + i, n);
        line_start = i + 1;
      }
    }
    memmove(g_maps_buf, g_maps_buf + line_start, have - line_start);
    have -= line_start;
    if (have == sizeof g_maps_buf) have = 0;  // a 64 KiB line: drop it
  }
  syscall(SYS_close, fd);
  g_ranges_seq.fetch_add(1, std::memory_order_acq_rel);  // odd: readers wait
  for (int32_t i = 0; i < n; ++i) {
    __atomic_store_n(&g_ranges[i].start, g_staging[i].start, __ATOMIC_RELAXED);
    __atomic_store_n(&g_ranges[i].end, g_staging[i].end, __ATOMIC_RELAXED);
    __atomic_store_n(&g_ranges[i].dso, g_staging[i].dso, __ATOMIC_RELAXED);
  }
  g_range_count.store(n, std::memory_order_relaxed);
  g_ranges_seq.fetch_add(1, std::memory_order_release);  // even again
  g_refreshes.fetch_add(1, std::memory_order_relaxed);
  g_last_refresh_ns.store(now_ns(), std::memory_order_relaxed);
}

// -1 when addr is in no known executable range.
int32_t lookup_range(uintptr_t addr) {
  for (;;) {
    uint64_t seq = g_ranges_seq.load(std::memory_order_acquire);
    if (seq & 1) {
      sched_yield();
      continue;
    }
    int32_t lo = 0, hi = g_range_count.load(std::memory_order_relaxed) - 1, found = -1;
    if (hi >= kMaxRanges) hi = kMaxRanges - 1;
    while (lo <= hi) {
      int32_t mid = lo + (hi - lo) / 2;
      uintptr_t s = __atomic_load_n(&g_ranges[mid].start, __ATOMIC_RELAXED);
      uintptr_t e = __atomic_load_n(&g_ranges[mid].end, __ATOMIC_RELAXED);
      if (addr < s) {
        hi = mid - 1;
      } else if (addr >= e) {
        lo = mid + 1;
      } else {
        found = __atomic_load_n(&g_ranges[mid].dso, __ATOMIC_RELAXED);
        break;
      }
    }
    std::atomic_thread_fence(std::memory_order_acquire);
    if (g_ranges_seq.load(std::memory_order_relaxed) == seq) return found;
  }
}

int32_t dso_of(uintptr_t addr) {
  int32_t d = lookup_range(addr);
  if (d >= 0) return d;
  // A miss: code mapped since the last read (dlopen, new JIT pages).  Re-read
  // now if the loader added an object, else at most every 50 ms.
  uint64_t adds = loader_adds();
  bool loaded = adds != g_seen_adds.load(std::memory_order_relaxed);
  if (!loaded && now_ns() - g_last_refresh_ns.load(std::memory_order_relaxed) < kRefreshIntervalNs) {
    return -1;
  }
  if (g_maps_lock.try_lock()) {
    g_seen_adds.store(adds, std::memory_order_relaxed);
    refresh_maps_locked();
    g_maps_lock.unlock();
  }
  return lookup_range(addr);
}

bool dso_skipped(int32_t d) { return (g_dsos[d].flags & DALKIT_TRACER_FLAG_SKIPPED) != 0; }

bool in_skip_range(uintptr_t addr) {
  for (int i = 0; i < g_skip_range_count; ++i) {
    if (addr >= g_skip_ranges[i].start && addr < g_skip_ranges[i].end) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------
// Choosing the DSO: the caller's return address, or, when that lies in a
// looked-through DSO (operator new in libstdc++, strdup in libc ...), the
// first frame outside them found by _Unwind_Backtrace.

struct Walk {
  int32_t found = -1;
  int32_t fallback = -1;  // the first looked-through DSO other than the tracer
  int frames = 0;
};

_Unwind_Reason_Code walk_frame(_Unwind_Context* ctx, void* arg) {
  auto* w = static_cast<Walk*>(arg);
  uintptr_t ip = _Unwind_GetIP(ctx);
  if (ip == 0 || ++w->frames > kMaxFrames) return _URC_END_OF_STACK;
  int32_t d = dso_of(ip - 1);  // -1: inside the call instruction, not after it
  if (d < 0) return _URC_NO_REASON;
  if (dso_skipped(d) || in_skip_range(ip - 1)) {
    if (w->fallback < 0 && strcmp(g_dsos[d].path, g_self_path) != 0) w->fallback = d;
    return _URC_NO_REASON;
  }
  w->found = d;
  return _URC_END_OF_STACK;  // anything but _URC_NO_REASON stops the walk
}

int32_t attribute(const void* caller) {
  auto ra = reinterpret_cast<uintptr_t>(caller) - 1;
  int32_t d = dso_of(ra);
  if (d >= 0 && !dso_skipped(d) && !in_skip_range(ra)) return d;
  g_unwinds.fetch_add(1, std::memory_order_relaxed);
  Walk w;
  _Unwind_Backtrace(walk_frame, &w);
  if (w.found >= 0) return w.found;
  if (w.fallback >= 0) return w.fallback;
  return d >= 0 ? d : kUnknownDso;
}

// ---------------------------------------------------------------------------
// Live blocks: address -> (size, DSO), in an mmap'd open-addressing table.
// A key lives within kWindow slots of its home slot; lookups scan the whole
// window, so a removal simply empties its slot (no tombstones).  A block's
// entry is removed BEFORE the real free, so its address cannot be handed out
// again while the entry still exists: keys are unique.  g_filter counts
// entries per hash prefix: a free whose prefix holds none (the common case in
// sampled mode) costs one load.

struct Slot {
  std::atomic<uintptr_t> key;
  std::atomic<uint64_t> val;  // size << 16 | dso
};
Slot* g_slots = nullptr;
uint64_t g_slot_mask = 0;
int g_slot_shift = 64;
uint64_t g_slot_count = 0;
constexpr int kFilterBits = 16;
std::atomic<uint16_t> g_filter[1 << kFilterBits];  // entries per hash prefix: at most slots/65536 + kWindow

inline uint64_t hash_ptr(uintptr_t p) { return uint64_t(p >> 4) * 0x9E3779B97F4A7C15ull; }

bool table_insert(uintptr_t key, uint64_t val) {
  uint64_t h = hash_ptr(key);
  uint64_t home = h >> g_slot_shift;
  for (int k = 0; k < kWindow; ++k) {
    Slot& s = g_slots[(home + uint64_t(k)) & g_slot_mask];
    uintptr_t empty = 0;
    if (s.key.load(std::memory_order_relaxed) == 0 &&
        s.key.compare_exchange_strong(empty, key, std::memory_order_acq_rel)) {
      s.val.store(val, std::memory_order_release);
      g_filter[h >> (64 - kFilterBits)].fetch_add(1, std::memory_order_release);
      return true;
    }
  }
  return false;
}

inline bool table_maybe_has(uintptr_t key) {
  return g_filter[hash_ptr(key) >> (64 - kFilterBits)].load(std::memory_order_acquire) != 0;
}

bool table_remove(uintptr_t key, uint64_t& val) {
  uint64_t h = hash_ptr(key);
  uint64_t home = h >> g_slot_shift;
  for (int k = 0; k < kWindow; ++k) {
    Slot& s = g_slots[(home + uint64_t(k)) & g_slot_mask];
    if (s.key.load(std::memory_order_acquire) == key) {
      val = s.val.load(std::memory_order_acquire);
      s.key.store(0, std::memory_order_release);
      g_filter[h >> (64 - kFilterBits)].fetch_sub(1, std::memory_order_relaxed);
      return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------------------
// Sampling (tcmalloc's sampler): bytes between samples are exponentially
// distributed with mean T, per thread, so a block of s bytes is sampled with
// probability p(s) = 1 - exp(-s/T) and counted with weight s/p(s) bytes,
// 1/p(s) blocks.  The weight is a function of s alone, so the free of a
// sampled block subtracts exactly what its allocation added.

uint64_t next_random(ThreadState& t) {
  // xorshift64*
  t.rng ^= t.rng >> 12;
  t.rng ^= t.rng << 25;
  t.rng ^= t.rng >> 27;
  return t.rng * 0x2545F4914F6CDD1Dull;
}

int64_t draw_interval(ThreadState& t) {
  // u in (0, 1]: 53 random bits.
  double u = (double(next_random(t) >> 11) + 1.0) * (1.0 / 9007199254740992.0);
  double v = -std::log(u) * g_sample_mean;
  if (v > 1e15) v = 1e15;
  return int64_t(v) + 1;
}

std::atomic<uint64_t> g_thread_ordinal{0};

void init_sampler(ThreadState& t) {
  uint64_t ordinal = g_thread_ordinal.fetch_add(1, std::memory_order_relaxed);
  uint64_t seed = g_seeded ? g_seed : uint64_t(now_ns()) ^ reinterpret_cast<uintptr_t>(&t);
  t.rng = (seed + 1) * 0x9E3779B97F4A7C15ull ^ (ordinal + 1) * 0xBF58476D1CE4E5B9ull;
  if (t.rng == 0) t.rng = 1;
  for (int i = 0; i < 4; ++i) next_random(t);
  t.until_sample = draw_interval(t);
  t.sampler_ready = 1;
}

struct Weight {
  int64_t bytes;
  int64_t count;
};

Weight weight_of(uint64_t size) {
  if (g_exact) return Weight{int64_t(size), 1};
  double p = -std::expm1(-double(size) / g_sample_mean);
  if (!(p > 0)) return Weight{0, 0};
  return Weight{std::llround(double(size) / p), std::llround(1.0 / p)};
}

constexpr uint64_t kMaxRecordedSize = (uint64_t{1} << 48) - 1;

void charge(uintptr_t p, uint64_t size, int32_t dso) {
  if (size > kMaxRecordedSize) size = kMaxRecordedSize;
  if (!table_insert(p, size << 16 | uint64_t(dso))) {
    g_dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  Weight w = weight_of(size);
  Dso& d = g_dsos[dso];
  d.live_bytes.fetch_add(w.bytes, std::memory_order_relaxed);
  d.live_allocs.fetch_add(w.count, std::memory_order_relaxed);
  d.allocs.fetch_add(w.count, std::memory_order_relaxed);
  d.samples_live.fetch_add(1, std::memory_order_relaxed);
}

void discharge(uint64_t val) {
  uint64_t size = val >> 16;
  Weight w = weight_of(size);
  Dso& d = g_dsos[val & 0xffff];
  d.live_bytes.fetch_sub(w.bytes, std::memory_order_relaxed);
  d.live_allocs.fetch_sub(w.count, std::memory_order_relaxed);
  d.frees.fetch_add(w.count, std::memory_order_relaxed);
  d.samples_live.fetch_sub(1, std::memory_order_relaxed);
}

// Should this allocation be recorded?  The fast path of sampled mode is the
// decrement and the test.
inline bool take_sample(uint64_t size) {
  ThreadState& t = t_state;
  if (g_exact) return !t.guard;
  t.until_sample -= int64_t(size);
  if (__builtin_expect(t.until_sample > 0, 1)) return false;
  if (t.guard) return false;
  if (!t.sampler_ready) {
    int64_t left = t.until_sample;  // the bytes of this call, already taken
    init_sampler(t);
    t.until_sample += left;
    if (t.until_sample > 0) return false;
  }
  t.until_sample = draw_interval(t);  // memoryless: a fresh interval
  return true;
}

void record_slow(void* p, uint64_t size, int32_t owner, const void* caller) {
  Guard guard;
  int32_t dso = owner >= 0 ? owner : attribute(caller);
  charge(reinterpret_cast<uintptr_t>(p), size, dso);
}

inline void on_alloc(void* p, uint64_t size, const void* caller) {
  if (!p || !g_enabled.load(std::memory_order_acquire)) return;
  if (__builtin_expect(!take_sample(size), 1)) return;
  record_slow(p, size, -1, caller);
}

// Removes p's entry if it has one; returns its DSO, or -1.
inline int32_t on_free(void* p) {
  if (!g_enabled.load(std::memory_order_acquire)) return -1;
  auto key = reinterpret_cast<uintptr_t>(p);
  if (__builtin_expect(!table_maybe_has(key), 1)) return -1;
  uint64_t val;
  if (!table_remove(key, val)) return -1;
  discharge(val);
  return int32_t(val & 0xffff);
}

// ---------------------------------------------------------------------------
// Anonymous mappings: exact, in a small table under a spin lock (mmap and
// munmap are system calls; the scan is cheap next to them).

struct Region {
  uintptr_t start;
  uintptr_t end;
  int32_t dso;
};
Region g_regions[kMaxRegions];
int g_region_count = 0;
SpinLock g_region_lock;
uintptr_t g_page = 4096;

uintptr_t page_up(uintptr_t n) { return (n + g_page - 1) & ~(g_page - 1); }

void region_add(uintptr_t start, uintptr_t end, int32_t dso) {
  g_region_lock.lock();
  if (g_region_count >= kMaxRegions) {
    g_region_lock.unlock();
    g_mmap_dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  g_regions[g_region_count++] = Region{start, end, dso};
  g_region_lock.unlock();
  g_dsos[dso].mmap_bytes.fetch_add(int64_t(end - start), std::memory_order_relaxed);
  g_dsos[dso].mmap_regions.fetch_add(1, std::memory_order_relaxed);
}

// [start, end) is no longer mapped as recorded: cut it out of every region.
// Returns the DSO of the first region it touched, or -1.
int32_t region_remove(uintptr_t start, uintptr_t end) {
  int32_t first = -1;
  g_region_lock.lock();
  for (int i = 0; i < g_region_count;) {
    Region& r = g_regions[i];
    if (r.end <= start || r.start >= end) {
      ++i;
      continue;
    }
    if (first < 0) first = r.dso;
    Dso& d = g_dsos[r.dso];
    uintptr_t cut_start = r.start > start ? r.start : start;
    uintptr_t cut_end = r.end < end ? r.end : end;
    d.mmap_bytes.fetch_sub(int64_t(cut_end - cut_start), std::memory_order_relaxed);
    if (cut_start == r.start && cut_end == r.end) {  // whole region
      d.mmap_regions.fetch_sub(1, std::memory_order_relaxed);
      r = g_regions[--g_region_count];
      continue;  // look at the region moved into slot i
    }
    if (cut_start == r.start) {
      r.start = cut_end;
    } else if (cut_end == r.end) {
      r.end = cut_start;
    } else {  // a hole in the middle: two regions
      if (g_region_count < kMaxRegions) {
        g_regions[g_region_count++] = Region{cut_end, r.end, r.dso};
        d.mmap_regions.fetch_add(1, std::memory_order_relaxed);
      } else {
        d.mmap_bytes.fetch_sub(int64_t(r.end - cut_end), std::memory_order_relaxed);
        g_mmap_dropped.fetch_add(1, std::memory_order_relaxed);
      }
      r.end = cut_start;
    }
    ++i;
  }
  g_region_lock.unlock();
  return first;
}

// The bytes of [start, end) in resident pages, by mincore in chunks of
// kMincorePages (g_mincore_pages is used under g_region_lock only).
constexpr size_t kMincorePages = 16384;
unsigned char g_mincore_pages[kMincorePages];

int64_t resident_bytes(uintptr_t start, uintptr_t end) {
  int64_t bytes = 0;
  const uintptr_t chunk = kMincorePages * g_page;
  for (uintptr_t a = start; a < end; a += chunk) {
    const uintptr_t len = end - a < chunk ? end - a : chunk;
    if (mincore(reinterpret_cast<void*>(a), len, g_mincore_pages) != 0) continue;  // unmapped meanwhile
    const size_t pages = page_up(len) / g_page;
    for (size_t j = 0; j < pages; ++j) bytes += (g_mincore_pages[j] & 1) ? int64_t(g_page) : 0;
  }
  return bytes;
}

// The resident bytes of a DSO's anonymous regions now.  A read-write
// mapping is mapped whole and touched as it fills: a Rust or Skia arena, an
// allocator's heap reserved up front (1 GiB in one napi-rs addon, 7 MB of it
// resident).  Its mapped size is address space; what it holds is what is
// resident, which is what RSS counts too.
int64_t dso_resident_bytes(int32_t dso) {
  int64_t bytes = 0;
  g_region_lock.lock();
  for (int i = 0; i < g_region_count; ++i) {
    if (g_regions[i].dso == dso) bytes += resident_bytes(g_regions[i].start, g_regions[i].end);
  }
  g_region_lock.unlock();
  return bytes;
}

bool is_tracked_mapping(int prot, int flags) { return (flags & MAP_ANONYMOUS) && prot != PROT_NONE; }

void after_mmap(void* r, size_t len, int prot, int flags, const void* caller) {
  if (r == MAP_FAILED || !g_enabled.load(std::memory_order_acquire) || t_state.guard) return;
  auto start = reinterpret_cast<uintptr_t>(r);
  uintptr_t end = start + page_up(len);
  if (flags & MAP_FIXED) region_remove(start, end);  // the new mapping replaced what was there
  if (!is_tracked_mapping(prot, flags)) return;
  Guard guard;
  region_add(start, end, attribute(caller));
}

// ---------------------------------------------------------------------------
// Start-up: configuration, the table, the first maps read, the unwinder
// warmed up, fork safety; then recording starts.

void read_config() {
  int64_t v;
  const char* s = getenv("DALKIT_TRACER_SAMPLE_BYTES");
  if (s && *s) {
    if (parse_size(s, v)) {
      g_sample_bytes = v;
    } else {
      write_str(2, "dalkit tracer: DALKIT_TRACER_SAMPLE_BYTES is not a size (N, Nk, Nm): using 64k\n");
    }
  }
  g_exact = g_sample_bytes == 0;
  g_sample_mean = double(g_sample_bytes);
  s = getenv("DALKIT_TRACER_SEED");
  if (s && *s && parse_size(s, v)) g_seed = uint64_t(v), g_seeded = true;
  uint64_t slots = g_exact ? kDefaultExactSlots : kDefaultSampledSlots;
  s = getenv("DALKIT_TRACER_TABLE_SLOTS");
  if (s && *s) {
    if (parse_size(s, v) && v >= 1024 && v <= (int64_t{1} << 28)) {
      slots = 1024;
      while (slots < uint64_t(v)) slots <<= 1;
    } else {
      write_str(2, "dalkit tracer: DALKIT_TRACER_TABLE_SLOTS must be 1024 .. 268435456: using the default\n");
    }
  }
  g_slot_count = slots;
  s = getenv("DALKIT_TRACER_REPORT");
  if (s) copy_str(g_report, sizeof g_report, s, strlen(s));
  s = getenv("DALKIT_TRACER_SKIP");
  if (s) {
    copy_str(g_skip_env, sizeof g_skip_env, s, strlen(s));
    g_skip_env_len = int(strlen(g_skip_env));
    for (int i = 0; i < g_skip_env_len; ++i) {
      if (g_skip_env[i] == ',') g_skip_env[i] = '\0';
    }
  }
}

// operator new/delete that live outside libstdc++ (an executable or library
// with a static libstdc++): their addresses from the global scope, their
// sizes from the symbol table.
void find_skip_ranges() {
  static const char* const kNames[] = {"_Znwm",
                                       "_Znam",
                                       "_ZnwmRKSt9nothrow_t",
                                       "_ZnamRKSt9nothrow_t",
                                       "_ZnwmSt11align_val_t",
                                       "_ZnamSt11align_val_t",
                                       "_ZnwmSt11align_val_tRKSt9nothrow_t",
                                       "_ZnamSt11align_val_tRKSt9nothrow_t"};
  for (const char* name : kNames) {
    void* addr = dlsym(RTLD_DEFAULT, name);
    if (!addr || g_skip_range_count >= kMaxSkipRanges) continue;
    Dl_info info;
    void* extra = nullptr;
    if (!dladdr1(addr, &info, &extra, RTLD_DL_SYMENT) || !extra) continue;
    const auto* sym = static_cast<const ElfW(Sym)*>(extra);
    if (sym->st_size == 0) continue;
    if (info.dli_fname && name_is_skipped(base_name(info.dli_fname))) continue;  // already looked through
    auto start = reinterpret_cast<uintptr_t>(addr);
    g_skip_ranges[g_skip_range_count++] = SkipRange{start, start + sym->st_size};
  }
}

void lock_for_fork() {
  g_maps_lock.lock();
  g_region_lock.lock();
}
void unlock_after_fork() {
  g_region_lock.unlock();
  g_maps_lock.unlock();
}

void init_tracking() {
  Guard guard;
  ensure_real();
  read_config();
  long page = long(getauxval(AT_PAGESZ));
  if (page > 0) g_page = uintptr_t(page);
  ssize_t n = readlink("/proc/self/exe", g_exe_path, sizeof g_exe_path - 1);
  g_exe_path[n > 0 ? n : 0] = '\0';
  Dl_info self;
  if (dladdr(reinterpret_cast<void*>(&init_tracking), &self) && self.dli_fname) {
    copy_str(g_self_path, sizeof g_self_path, self.dli_fname, strlen(self.dli_fname));
  }
  g_maps_lock.lock();
  find_or_add_dso("[unknown]", 9, true);
  find_or_add_dso("[anon]", 6, true);
  g_seen_adds.store(loader_adds(), std::memory_order_relaxed);
  refresh_maps_locked();
  g_maps_lock.unlock();
  find_skip_ranges();
  size_t bytes = size_t(g_slot_count * sizeof(Slot));
  void* table = g_real.mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (table == MAP_FAILED) {
    write_str(2, "dalkit tracer: cannot map the live-block table: not recording\n");
    return;
  }
  g_slots = static_cast<Slot*>(table);
  g_slot_mask = g_slot_count - 1;
  g_slot_shift = 64 - __builtin_ctzll(g_slot_count);
  // The first _Unwind_Backtrace may load or initialise parts of libgcc (and
  // allocate): do it now, under the guard, rather than inside an allocation.
  Walk w;
  _Unwind_Backtrace(walk_frame, &w);
  // A fork while another thread holds a tracer lock would leave the child
  // unable to take it: hold them across fork.
  pthread_atfork(lock_for_fork, unlock_after_fork, unlock_after_fork);
  g_enabled.store(true, std::memory_order_release);
}

// ---------------------------------------------------------------------------
// The report (DALKIT_TRACER_REPORT and dalkit_tracer_report_fd).

// Right-aligned decimal in a field of `width`.
size_t format_int(char* out, int64_t v, int width) {
  char tmp[24];
  int n = 0;
  bool neg = v < 0;
  uint64_t u = neg ? uint64_t(-(v + 1)) + 1 : uint64_t(v);
  do {
    tmp[n++] = char('0' + u % 10);
    u /= 10;
  } while (u);
  if (neg) tmp[n++] = '-';
  size_t len = 0;
  for (int i = n; i < width; ++i) out[len++] = ' ';
  while (n) out[len++] = tmp[--n];
  return len;
}

int32_t write_report(int fd) {
  char line[512];
  size_t len = 0;
  auto put = [&](const char* s) {
    for (; *s && len < sizeof line; ++s) line[len++] = *s;
  };
  auto put_int = [&](int64_t v, int width) {
    char num[48];
    num[format_int(num, v, width < 40 ? width : 40)] = '\0';
    put(num);
  };
  auto flush = [&] {
    write_all(fd, line, len);
    len = 0;
  };
  put("dalkit tracer: ");
  if (!g_enabled.load(std::memory_order_acquire)) {
    put("not recording\n");
    flush();
    return 0;
  }
  if (g_exact) {
    put("exact mode (every allocation)");
  } else {
    put("sampled mode (1 per ");
    put_int(g_sample_bytes, 0);
    put(" bytes, estimates)");
  }
  put(", dropped ");
  put_int(g_dropped.load(std::memory_order_relaxed), 0);
  put("\n");
  put("  live bytes  live allocs   mmap bytes       allocs        frees  DSO\n");
  flush();
  int32_t count = g_dso_count.load(std::memory_order_acquire);
  // Rows by live bytes + mmap bytes, largest first (insertion sort of indices).
  int32_t order[kMaxDsos];
  int32_t rows = 0;
  for (int32_t i = 0; i < count; ++i) {
    const Dso& d = g_dsos[i];
    if (d.allocs.load(std::memory_order_relaxed) == 0 && d.mmap_regions.load(std::memory_order_relaxed) == 0 &&
        d.mmap_bytes.load(std::memory_order_relaxed) == 0) {
      continue;
    }
    auto total = [](const Dso& x) {
      return x.live_bytes.load(std::memory_order_relaxed) + x.mmap_bytes.load(std::memory_order_relaxed);
    };
    int32_t j = rows++;
    while (j > 0 && total(g_dsos[order[j - 1]]) < total(d)) {
      order[j] = order[j - 1];
      --j;
    }
    order[j] = i;
  }
  for (int32_t r = 0; r < rows; ++r) {
    const Dso& d = g_dsos[order[r]];
    put_int(d.live_bytes.load(std::memory_order_relaxed), 12);
    put_int(d.live_allocs.load(std::memory_order_relaxed), 13);
    put_int(d.mmap_bytes.load(std::memory_order_relaxed), 13);
    put_int(d.allocs.load(std::memory_order_relaxed), 13);
    put_int(d.frees.load(std::memory_order_relaxed), 13);
    put("  ");
    put(d.name);
    put("\n");
    flush();
  }
  return 0;
}

__attribute__((constructor)) void tracer_init() { init_tracking(); }

__attribute__((destructor)) void tracer_fini() {
  if (!g_report[0]) return;
  Guard guard;
  if (strcmp(g_report, "stderr") == 0) {
    write_report(2);
    return;
  }
  int fd = int(syscall(SYS_openat, AT_FDCWD, g_report, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd < 0) {
    write_str(2, "dalkit tracer: cannot open DALKIT_TRACER_REPORT file\n");
    return;
  }
  write_report(fd);
  syscall(SYS_close, fd);
}

}  // namespace

// ===========================================================================
// The hooks.  Each passes its own return address: the common case (a DSO
// calling malloc directly) is attributed without walking the stack.

TRACER_HOOK void* malloc(size_t size) noexcept {
  if (__builtin_expect(!ensure_real(), 0)) return arena_alloc(size);
  void* p = g_real.malloc(size);
  on_alloc(p, size, __builtin_return_address(0));
  return p;
}

TRACER_HOOK void* calloc(size_t n, size_t size) noexcept {
  if (__builtin_expect(!ensure_real(), 0)) {
    size_t total;
    if (__builtin_mul_overflow(n, size, &total)) return nullptr;
    return arena_alloc(total);  // static storage: already zero
  }
  void* p = g_real.calloc(n, size);
  on_alloc(p, uint64_t(n) * size, __builtin_return_address(0));
  return p;
}

TRACER_HOOK void free(void* p) noexcept {
  if (!p || in_arena(p)) return;
  on_free(p);
  if (ensure_real()) g_real.free(p);
}

TRACER_HOOK void* realloc(void* p, size_t size) noexcept {
  if (__builtin_expect(!ensure_real(), 0)) {  // this thread is inside dlsym: only arena blocks exist yet
    if (p && !in_arena(p)) return nullptr;
    void* q = arena_alloc(size);
    if (q && p) memcpy(q, p, arena_size(p) < size ? arena_size(p) : size);
    return q;
  }
  if (in_arena(p)) {  // a bootstrap block grows into a real one (the arena block is never reused)
    void* q = malloc(size);
    if (q) memcpy(q, p, arena_size(p) < size ? arena_size(p) : size);
    return q;
  }
  if (!p) {
    void* q = g_real.malloc(size);
    on_alloc(q, size, __builtin_return_address(0));
    return q;
  }
  // The old block's entry goes first (its address may be reused as soon as
  // the real realloc returns); the new block keeps the old block's DSO.
  uint64_t old_val = 0;
  bool had = false;
  if (g_enabled.load(std::memory_order_acquire) && table_maybe_has(reinterpret_cast<uintptr_t>(p))) {
    had = table_remove(reinterpret_cast<uintptr_t>(p), old_val);
    if (had) discharge(old_val);
  }
  void* q = g_real.realloc(p, size);
  if (!q) {
    if (had && size != 0) {  // failed: the old block is still there, as it was
      Guard guard;
      charge(reinterpret_cast<uintptr_t>(p), old_val >> 16, int32_t(old_val & 0xffff));
    }
    return q;
  }
  if (g_enabled.load(std::memory_order_acquire) && take_sample(size)) {
    record_slow(q, size, had ? int32_t(old_val & 0xffff) : -1, __builtin_return_address(0));
  }
  return q;
}

TRACER_HOOK int posix_memalign(void** out, size_t align, size_t size) noexcept {
  if (__builtin_expect(!ensure_real(), 0)) {
    void* p = arena_alloc(size, align);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
  }
  int rc = g_real.posix_memalign(out, align, size);
  if (rc == 0) on_alloc(*out, size, __builtin_return_address(0));
  return rc;
}

TRACER_HOOK void* aligned_alloc(size_t align, size_t size) noexcept {
  if (__builtin_expect(!ensure_real(), 0)) return arena_alloc(size, align);
  void* p = g_real.aligned_alloc(align, size);
  on_alloc(p, size, __builtin_return_address(0));
  return p;
}

TRACER_HOOK void* memalign(size_t align, size_t size) noexcept {
  if (__builtin_expect(!ensure_real(), 0)) return arena_alloc(size, align);
  void* p = g_real.memalign(align, size);
  on_alloc(p, size, __builtin_return_address(0));
  return p;
}

TRACER_HOOK void* valloc(size_t size) noexcept {
  if (__builtin_expect(!ensure_real(), 0)) return arena_alloc(size, 4096);
  void* p = g_real.valloc(size);
  on_alloc(p, size, __builtin_return_address(0));
  return p;
}

TRACER_HOOK void* pvalloc(size_t size) noexcept {
  if (__builtin_expect(!ensure_real(), 0)) return arena_alloc(size, 4096);
  void* p = g_real.pvalloc(size);
  on_alloc(p, page_up(size == 0 ? 1 : size), __builtin_return_address(0));  // pvalloc rounds up to pages
  return p;
}

TRACER_HOOK size_t malloc_usable_size(void* p) noexcept {
  if (!p) return 0;
  if (in_arena(p)) return arena_size(p);
  return ensure_real() ? g_real.malloc_usable_size(p) : 0;
}

namespace {
void* raw_mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off) {
  return reinterpret_cast<void*>(syscall(SYS_mmap, addr, len, prot, flags, fd, off));
}
}  // namespace

TRACER_HOOK void* mmap(void* addr, size_t len, int prot, int flags, int fd, off_t off) noexcept {
  void* r = ensure_real() ? g_real.mmap(addr, len, prot, flags, fd, off) : raw_mmap(addr, len, prot, flags, fd, off);
  after_mmap(r, len, prot, flags, __builtin_return_address(0));
  return r;
}

TRACER_HOOK void* mmap64(void* addr, size_t len, int prot, int flags, int fd, off_t off) noexcept {
  void* r = ensure_real() ? g_real.mmap64(addr, len, prot, flags, fd, off) : raw_mmap(addr, len, prot, flags, fd, off);
  after_mmap(r, len, prot, flags, __builtin_return_address(0));
  return r;
}

TRACER_HOOK int munmap(void* addr, size_t len) noexcept {
  int rc = ensure_real() ? g_real.munmap(addr, len) : int(syscall(SYS_munmap, addr, len));
  if (rc == 0 && g_enabled.load(std::memory_order_acquire)) {
    auto start = reinterpret_cast<uintptr_t>(addr);
    region_remove(start, start + page_up(len));
  }
  return rc;
}

TRACER_HOOK void* mremap(void* old, size_t old_len, size_t new_len, int flags, ...) noexcept {
  void* new_addr = nullptr;
  if (flags & MREMAP_FIXED) {
    va_list ap;
    va_start(ap, flags);
    new_addr = va_arg(ap, void*);
    va_end(ap);
  }
  ensure_real();
  void* r = g_real.mremap(old, old_len, new_len, flags, new_addr);
  if (r == MAP_FAILED || !g_enabled.load(std::memory_order_acquire)) return r;
  auto o = reinterpret_cast<uintptr_t>(old);
  auto n = reinterpret_cast<uintptr_t>(r);
  // The old range moves (or grows/shrinks in place): same DSO, new extent.
  int32_t owner = region_remove(o, o + page_up(old_len));
  region_remove(n, n + page_up(new_len));
  if (owner >= 0) region_add(n, n + page_up(new_len), owner);
  return r;
}

// ===========================================================================
// The C ABI (dalkit_tracer.h).

extern "C" {

DALKIT_TRACER_API int32_t dalkit_tracer_version(void) { return DALKIT_TRACER_VERSION_NUMBER; }

DALKIT_TRACER_API int64_t dalkit_tracer_stat(int32_t stat) {
  switch (stat) {
    case DALKIT_TRACER_SAMPLE_BYTES: return g_sample_bytes;
    case DALKIT_TRACER_ACTIVE: return g_enabled.load(std::memory_order_acquire) ? 1 : 0;
    case DALKIT_TRACER_DROPPED: return g_dropped.load(std::memory_order_relaxed);
    case DALKIT_TRACER_MMAP_DROPPED: return g_mmap_dropped.load(std::memory_order_relaxed);
    case DALKIT_TRACER_MAPS_REFRESHES: return g_refreshes.load(std::memory_order_relaxed);
    case DALKIT_TRACER_UNWINDS: return g_unwinds.load(std::memory_order_relaxed);
    case DALKIT_TRACER_TABLE_SLOTS: return int64_t(g_slot_count);
    default: return DALKIT_TRACER_E_RANGE;
  }
}

DALKIT_TRACER_API int32_t dalkit_tracer_dso_count(void) { return g_dso_count.load(std::memory_order_acquire); }

DALKIT_TRACER_API const char* dalkit_tracer_dso_name(int32_t i) {
  if (i < 0 || i >= g_dso_count.load(std::memory_order_acquire)) return nullptr;
  return g_dsos[i].name;
}

DALKIT_TRACER_API const char* dalkit_tracer_dso_path(int32_t i) {
  if (i < 0 || i >= g_dso_count.load(std::memory_order_acquire)) return nullptr;
  return g_dsos[i].path;
}

DALKIT_TRACER_API int64_t dalkit_tracer_dso_stat(int32_t i, int32_t stat) {
  if (i < 0 || i >= g_dso_count.load(std::memory_order_acquire)) return DALKIT_TRACER_E_RANGE;
  const Dso& d = g_dsos[i];
  switch (stat) {
    case DALKIT_TRACER_LIVE_BYTES: return d.live_bytes.load(std::memory_order_relaxed);
    case DALKIT_TRACER_LIVE_ALLOCS: return d.live_allocs.load(std::memory_order_relaxed);
    case DALKIT_TRACER_ALLOCS: return d.allocs.load(std::memory_order_relaxed);
    case DALKIT_TRACER_FREES: return d.frees.load(std::memory_order_relaxed);
    case DALKIT_TRACER_MMAP_BYTES: return d.mmap_bytes.load(std::memory_order_relaxed);
    case DALKIT_TRACER_MMAP_REGIONS: return d.mmap_regions.load(std::memory_order_relaxed);
    case DALKIT_TRACER_SAMPLES_LIVE: return d.samples_live.load(std::memory_order_relaxed);
    case DALKIT_TRACER_FLAGS: return d.flags;
    case DALKIT_TRACER_MMAP_RESIDENT: return d.mmap_regions.load(std::memory_order_relaxed) ? dso_resident_bytes(i) : 0;
    default: return DALKIT_TRACER_E_RANGE;
  }
}

DALKIT_TRACER_API int32_t dalkit_tracer_snapshot(int64_t* out, int32_t rows) {
  if (rows < 0) return DALKIT_TRACER_E_RANGE;
  if (!out && rows > 0) return DALKIT_TRACER_E_NULL;
  int32_t count = g_dso_count.load(std::memory_order_acquire);
  for (int32_t i = 0; i < count && i < rows; ++i) {
    for (int32_t s = 0; s < DALKIT_TRACER_STAT_COUNT; ++s) {
      out[int64_t(i) * DALKIT_TRACER_STAT_COUNT + s] = dalkit_tracer_dso_stat(i, s);
    }
  }
  return count;
}

DALKIT_TRACER_API int32_t dalkit_tracer_report_fd(int32_t fd) {
  if (fd < 0) return DALKIT_TRACER_E_IO;
  return write_report(fd);
}

}  // extern "C"
