#include "dso_stats_source.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <mutex>
#include <string_view>

#include "../include/dalkit_tracer.h"

namespace dalmon {

namespace {

// Allocation entry points a program calls when it uses the C or C++ heap.
// One of them undefined in the executable's dynamic symbols means its
// allocations go through the global scope, where the preloaded tracer sits.
constexpr std::string_view kAllocators[] = {
    "malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign", "strdup", "_Znwm", "_Znam",
};

bool read_at(int fd, void* buf, size_t n, off_t at) {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    ssize_t r = pread(fd, p, n, at);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
    at += r;
  }
  return true;
}

bool scan_dynsym(int fd) {
  Elf64_Ehdr eh;
  if (!read_at(fd, &eh, sizeof eh, 0) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0)
    return false;
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  if (!read_at(fd, sh.data(), sh.size() * sizeof(Elf64_Shdr), static_cast<off_t>(eh.e_shoff))) return false;
  for (const Elf64_Shdr& s : sh) {
    if (s.sh_type != SHT_DYNSYM || s.sh_entsize != sizeof(Elf64_Sym) || s.sh_link >= sh.size()) continue;
    const Elf64_Shdr& strtab = sh[s.sh_link];
    // Bounded reads: a dynamic symbol table is tens of KB even in Bun's 90 MB executable.
    constexpr uint64_t kLimit = 64u << 20;
    if (s.sh_size > kLimit || strtab.sh_size > kLimit) return false;
    std::vector<Elf64_Sym> syms(s.sh_size / sizeof(Elf64_Sym));
    std::string names(strtab.sh_size, '\0');
    if (!read_at(fd, syms.data(), syms.size() * sizeof(Elf64_Sym), static_cast<off_t>(s.sh_offset)) ||
        !read_at(fd, names.data(), names.size(), static_cast<off_t>(strtab.sh_offset)))
      return false;
    for (const Elf64_Sym& sym : syms) {
      if (sym.st_shndx != SHN_UNDEF || sym.st_name >= names.size()) continue;
      const std::string_view name(names.c_str() + sym.st_name);
      for (std::string_view a : kAllocators)
        if (name == a) return true;
    }
  }
  return false;
}

// The tracer's C ABI, looked up in the global scope.
class TracerDsoSource final : public DsoStatsSource {
 public:
  bool present() noexcept override {
    resolve();
    return snapshot_ != nullptr;
  }

  bool read(DsoReading& out) override {
    if (!present()) return false;
    // The table only grows: ask for room for a few more DSOs than last time
    // and read again if more appeared meanwhile.
    int32_t n = 0;
    for (int attempt = 0; attempt < 4; ++attempt) {
      rows_.resize(static_cast<size_t>(capacity_) * DALKIT_TRACER_STAT_COUNT);
      n = snapshot_(rows_.data(), capacity_);
      if (n < 0) return false;
      if (n <= capacity_) break;
      capacity_ = n + 16;
    }
    if (n > capacity_) n = capacity_;
    out.bytes.assign(static_cast<size_t>(n), 0);
    for (int32_t i = 0; i < n; ++i) {
      const int64_t* row = rows_.data() + static_cast<size_t>(i) * DALKIT_TRACER_STAT_COUNT;
      // The runtime is judged on its malloc bytes only: its anonymous maps
      // are its JS heap (Deno: V8's pages; judged by js_heap) or address
      // space reserved and mostly never touched (Bun: 6.4 GB), not memory
      // a library holds.  A library's maps count by their resident pages:
      // one that reserves a read-write arena up front holds what it touched,
      // not the reservation (docs/attribution.md).
      const bool main = (row[DALKIT_TRACER_FLAGS] & DALKIT_TRACER_FLAG_MAIN) != 0;
      out.bytes[static_cast<size_t>(i)] = row[DALKIT_TRACER_LIVE_BYTES] + (main ? 0 : row[DALKIT_TRACER_MMAP_RESIDENT]);
    }
    out.sample_bytes = stat_(DALKIT_TRACER_SAMPLE_BYTES);
    out.dropped = stat_(DALKIT_TRACER_DROPPED) + stat_(DALKIT_TRACER_MMAP_DROPPED);
    return true;
  }

  DsoInfo info(int i) override {
    DsoInfo d;
    if (!present()) return d;
    const char* name = name_(i);
    const char* path = path_(i);
    d.name = name ? name : "?";
    d.path = path ? path : "";
    d.main = (dso_stat_(i, DALKIT_TRACER_FLAGS) & DALKIT_TRACER_FLAG_MAIN) != 0;
    return d;
  }

  bool runtime_heap_visible() noexcept override {
    std::call_once(visible_once_, [this] {
      // /proc/self/exe is the executable the tracer calls the main one.
      visible_ = elf_imports_allocator("/proc/self/exe");
    });
    return visible_;
  }

 private:
  void resolve() noexcept {
    std::call_once(resolve_once_, [this] {
      using VersionFn = int32_t (*)();
      auto version = reinterpret_cast<VersionFn>(dlsym(RTLD_DEFAULT, "dalkit_tracer_version"));
      // Another major version has another ABI: treated as no tracer.
      if (version == nullptr || version() / 1000000 != DALKIT_TRACER_VERSION_NUMBER / 1000000) return;
      stat_ = reinterpret_cast<decltype(stat_)>(dlsym(RTLD_DEFAULT, "dalkit_tracer_stat"));
      name_ = reinterpret_cast<decltype(name_)>(dlsym(RTLD_DEFAULT, "dalkit_tracer_dso_name"));
      path_ = reinterpret_cast<decltype(path_)>(dlsym(RTLD_DEFAULT, "dalkit_tracer_dso_path"));
      dso_stat_ = reinterpret_cast<decltype(dso_stat_)>(dlsym(RTLD_DEFAULT, "dalkit_tracer_dso_stat"));
      auto snapshot = reinterpret_cast<decltype(snapshot_)>(dlsym(RTLD_DEFAULT, "dalkit_tracer_snapshot"));
      if (stat_ && name_ && path_ && dso_stat_ && snapshot) snapshot_ = snapshot;
    });
  }

  std::once_flag resolve_once_, visible_once_;
  int64_t (*stat_)(int32_t) = nullptr;
  const char* (*name_)(int32_t) = nullptr;
  const char* (*path_)(int32_t) = nullptr;
  int64_t (*dso_stat_)(int32_t, int32_t) = nullptr;
  int32_t (*snapshot_)(int64_t*, int32_t) = nullptr;  // set last: non-null means all are
  bool visible_ = false;
  // Sampling is one controlling thread's job (monitor.hpp); the mutex keeps
  // two runs sampling at once from sharing the buffer.
  std::vector<int64_t> rows_;
  int32_t capacity_ = 64;
};

class LockedTracerSource final : public DsoStatsSource {
 public:
  bool present() noexcept override { return inner_.present(); }
  bool read(DsoReading& out) override {
    std::lock_guard lk(mu_);
    return inner_.read(out);
  }
  DsoInfo info(int i) override { return inner_.info(i); }
  bool runtime_heap_visible() noexcept override { return inner_.runtime_heap_visible(); }

 private:
  std::mutex mu_;
  TracerDsoSource inner_;
};

}  // namespace

bool elf_imports_allocator(const std::string& path) noexcept {
  try {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool found = scan_dynsym(fd);
    close(fd);
    return found;
  } catch (...) {
    return false;  // bad_alloc on a corrupt size: not known to import one
  }
}

DsoStatsSource& process_dso_source() noexcept {
  static LockedTracerSource source;
  return source;
}

}  // namespace dalmon
