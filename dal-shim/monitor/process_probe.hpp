// process_probe.hpp -- figures the monitor reads about its own process.
#pragma once

#include <cstdint>

namespace dalmon {

struct ProcessFigures {
  int64_t rss = -1;            // resident set size, bytes (page-granular)
  int64_t rss_anon = -1;       // its anonymous part: RSS less file-backed and shared pages
  int64_t malloc_in_use = -1;  // glibc heap bytes in use: mallinfo2 uordblks + hblkhd
  double cpu_user_s = 0;       // getrusage(RUSAGE_SELF)
  double cpu_sys_s = 0;
};

// An interface (not free functions) so tests can feed a planted series through
// the full Monitor pipeline; the real process is too noisy for a known answer.
class ProcessProbe {
 public:
  virtual ~ProcessProbe() = default;
  virtual ProcessFigures read() noexcept = 0;
};

// Linux implementation: /proc/self/statm, mallinfo2(), getrusage().
class LinuxProcessProbe final : public ProcessProbe {
 public:
  ProcessFigures read() noexcept override;

  // Helpers exposed on their own so that the startup mark can read RSS alone.
  static int64_t rss_bytes() noexcept;
  // RSS and its anonymous part from one read of statm: {rss, rss_anon}.
  static void rss_figures(int64_t& rss, int64_t& rss_anon) noexcept;
  static int64_t malloc_in_use_bytes() noexcept;
};

}  // namespace dalmon
