// dso_stats_source.hpp -- per shared object live bytes, from the allocation
// tracer (libdalkit_tracer.so, include/dalkit_tracer.h), for the monitor's
// native:<dso> layers (docs/attribution.md).
//
// The monitor never links the tracer: the tracer is present only in a
// process started with it in LD_PRELOAD, and then its C ABI is in the global
// scope.  TracerDsoSource finds it there with dlsym(RTLD_DEFAULT), so every
// driver that links the monitor (dalstress, the Node addon, libdalshim.so
// under Bun, Deno and koffi) gets the layers without code of its own.  Tests
// implement the interface with fakes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dalmon {

// One DSO as the tracer names it.  Indices are the tracer's: never reused
// or renumbered, so a series may be kept per index.
struct DsoInfo {
  std::string name;   // file name: "libdal.so", "node", "[anon]"
  std::string path;   // full path ("" for pseudo DSOs)
  bool main = false;  // the executable (the runtime: node, bun.exe, deno, dalstress)
};

// What one read returns: the figure judged for DSO i is bytes[i]; DSOs the
// tracer had not seen yet are simply not there (they had allocated nothing).
struct DsoReading {
  std::vector<int64_t> bytes;  // live malloc-family bytes + anonymous mmap bytes (the runtime: malloc only)
  int64_t sample_bytes = -1;   // the tracer's sampling interval (0 exact), -1 unknown
  int64_t dropped = 0;         // blocks the tracer could not record (its table was full)
};

class DsoStatsSource {
 public:
  virtual ~DsoStatsSource() = default;

  // Whether a tracer is in the process at all.  Without one the monitor
  // adds no native:<dso> layer.
  virtual bool present() noexcept = 0;

  // Read every DSO's figure.  Called at sample points only, from the
  // sampling thread.  Returns false if nothing could be read.
  virtual bool read(DsoReading& out) = 0;

  // Name and path of DSO i (i < out.bytes.size() of a read).
  virtual DsoInfo info(int i) = 0;

  // Whether the tracer can see the executable's own heap: false when the
  // executable brings its own allocator and calls no malloc the tracer could
  // wrap (Bun: mimalloc linked in).  native:runtime is then n/a, not 0.
  virtual bool runtime_heap_visible() noexcept = 0;
};

// The tracer of this process, found through dlsym(RTLD_DEFAULT) once.
// Process-wide; thread-safe.
DsoStatsSource& process_dso_source() noexcept;

// Whether the ELF file at `path` imports an allocation function (malloc,
// calloc, realloc, operator new ...) as an undefined dynamic symbol, that
// is, calls one the tracer can interpose.  false for a file that cannot be
// read or parsed.  (Exposed for tests.)
bool elf_imports_allocator(const std::string& path) noexcept;

}  // namespace dalmon
