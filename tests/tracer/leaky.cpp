// leaky.cpp -- a test DSO for the allocation tracer, built twice
// (libtracer_leaky_a.so with LEAKY_PREFIX=leaky_a, libtracer_leaky_b.so with
// leaky_b), so the tests can tell two callers apart.  Each function calls
// one allocation function itself: the tracer must charge the block to this
// DSO, including when the call goes through libstdc++ (operator new) or libc
// (strdup).
//
// Every function stores its result in a global before returning (keep()): that keeps
// the allocation call from being compiled as a tail call (a jump whose
// return address would be this function's caller, i.e. another DSO).
// docs/attribution.md lists that as a limit of return-address attribution.
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define LEAKY_CAT2(a, b) a##_##b
#define LEAKY_CAT(a, b) LEAKY_CAT2(a, b)
#define LEAKY(name) LEAKY_CAT(LEAKY_PREFIX, name)
#define LEAKY_API extern "C" __attribute__((visibility("default")))

namespace {
void* volatile g_last;
int volatile g_rc;
void* g_early;
size_t g_early_size;

template <typename T>
T keep(T p) {
  g_last = p;
  return p;
}

// Runs before the tracer's constructor: the loader initialises this DSO (a
// dependency of the test program) before the preloaded tracer, which comes
// first in the search list and is therefore initialised last but one.
__attribute__((constructor)) void allocate_early() {
  g_early_size = 4096;
  g_early = malloc(g_early_size);
}
}  // namespace

LEAKY_API void* LEAKY(malloc)(size_t n) { return keep(malloc(n)); }
LEAKY_API void* LEAKY(calloc)(size_t n, size_t size) { return keep(calloc(n, size)); }
LEAKY_API void* LEAKY(realloc)(void* p, size_t n) { return keep(realloc(p, n)); }
LEAKY_API void LEAKY(free)(void* p) {
  free(p);
  g_last = nullptr;
}
LEAKY_API void* LEAKY(posix_memalign)(size_t align, size_t n) {
  void* p = nullptr;
  g_rc = posix_memalign(&p, align, n);
  return g_rc == 0 ? p : nullptr;
}
LEAKY_API void* LEAKY(aligned_alloc)(size_t align, size_t n) { return keep(aligned_alloc(align, n)); }
LEAKY_API void* LEAKY(memalign)(size_t align, size_t n) { return keep(memalign(align, n)); }
LEAKY_API void* LEAKY(valloc)(size_t n) { return keep(valloc(n)); }
LEAKY_API char* LEAKY(strdup)(const char* s) {
  char* p = strdup(s);
  g_last = p;
  return p;
}
LEAKY_API char* LEAKY(new_array)(size_t n) {
  char* p = new char[n];
  g_last = p;
  return p;
}
LEAKY_API void LEAKY(delete_array)(char* p) {
  delete[] p;
  g_last = nullptr;
}
LEAKY_API void* LEAKY(mmap_anon)(size_t n) {
  void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  g_last = p;
  return p == MAP_FAILED ? nullptr : p;
}
LEAKY_API void* LEAKY(mmap_reserve)(size_t n) {
  void* p = mmap(nullptr, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  g_last = p;
  return p == MAP_FAILED ? nullptr : p;
}
LEAKY_API void* LEAKY(mmap_file)(int fd, size_t n) {
  void* p = mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0);
  g_last = p;
  return p == MAP_FAILED ? nullptr : p;
}
LEAKY_API int LEAKY(munmap)(void* p, size_t n) {
  int rc = munmap(p, n);
  g_rc = rc;
  return rc;
}
// The block this DSO's constructor allocated before the tracer started.
LEAKY_API void* LEAKY(early_block)(void) { return g_early; }
LEAKY_API size_t LEAKY(early_size)(void) { return g_early_size; }
