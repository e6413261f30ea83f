#include "process_probe.hpp"

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

namespace dalmon {

void LinuxProcessProbe::rss_figures(int64_t& rss, int64_t& rss_anon) noexcept {
  // statm is one short line and needs no parsing of keys, so it is the
  // cheapest source: field 2 is resident pages, field 3 the resident pages
  // backed by a file or shared memory (RssFile + RssShmem of
  // /proc/self/status), so 2 - 3 is RssAnon.
  rss = rss_anon = -1;
  std::FILE* f = std::fopen("/proc/self/statm", "re");
  if (!f) return;
  long long size = 0, resident = 0, shared = 0;
  int got = std::fscanf(f, "%lld %lld %lld", &size, &resident, &shared);
  std::fclose(f);
  long page = sysconf(_SC_PAGESIZE);
  if (got != 3 || page <= 0) return;
  rss = static_cast<int64_t>(resident) * page;
  rss_anon = static_cast<int64_t>(resident - shared) * page;
}

int64_t LinuxProcessProbe::rss_bytes() noexcept {
  int64_t rss = -1, anon = -1;
  rss_figures(rss, anon);
  return rss;
}

int64_t LinuxProcessProbe::malloc_in_use_bytes() noexcept {
  // mallinfo2 (glibc >= 2.33) has size_t fields; the old mallinfo wraps at
  // 2 GiB, which a 100M-query run of a leaking library can pass.  uordblks
  // counts arena chunks in use and hblkhd the mmap'ed large blocks, so their
  // sum is every byte malloc has handed out and not yet got back.
#if defined(__SANITIZE_ADDRESS__)
  // ASan replaces malloc and glibc's mallinfo2 then reports zero: say
  // "not available" (-1) rather than show a flat zero judged "no leak".
  return -1;
#else
  struct mallinfo2 mi = mallinfo2();
  return static_cast<int64_t>(mi.uordblks + mi.hblkhd);
#endif
}

ProcessFigures LinuxProcessProbe::read() noexcept {
  ProcessFigures f;
  rss_figures(f.rss, f.rss_anon);
  f.malloc_in_use = malloc_in_use_bytes();
  struct rusage ru {};
  if (getrusage(RUSAGE_SELF, &ru) == 0) {
    f.cpu_user_s = static_cast<double>(ru.ru_utime.tv_sec) + ru.ru_utime.tv_usec / 1e6;
    f.cpu_sys_s = static_cast<double>(ru.ru_stime.tv_sec) + ru.ru_stime.tv_usec / 1e6;
  }
  return f;
}

}  // namespace dalmon
