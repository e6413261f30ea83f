#include "progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <string>

#include "dalmonitor.h"
#include "grouped.hpp"

namespace dalstress {

namespace {

std::string duration(double s) {
  if (s < 0 || s > 1e7) return "--:--";
  auto t = static_cast<int64_t>(s + 0.5);
  char b[32];
  if (t >= 3600)
    std::snprintf(b, sizeof b, "%lld:%02lld:%02lld", static_cast<long long>(t / 3600),
                  static_cast<long long>(t / 60 % 60), static_cast<long long>(t % 60));
  else
    std::snprintf(b, sizeof b, "%lld:%02lld", static_cast<long long>(t / 60), static_cast<long long>(t % 60));
  return b;
}

}  // namespace

Progress::Progress(ProgressStyle style, int64_t total)
    : total_(total), t0_(std::chrono::steady_clock::now()), last_(t0_) {
  off_ = style == ProgressStyle::Off;
  tty_ = style == ProgressStyle::Line || (style == ProgressStyle::Auto && isatty(STDERR_FILENO));
  next_plain_ = total_ / 10;
}

void Progress::update(int64_t done) {
  if (off_ || done >= total_) return;  // the last line is finish()'s
  auto now = std::chrono::steady_clock::now();
  if (tty_) {
    if (now - last_ < std::chrono::milliseconds(250)) return;
  } else {
    if (done < next_plain_ && now - last_ < std::chrono::seconds(30)) return;
    while (next_plain_ <= done) next_plain_ += total_ / 10 > 0 ? total_ / 10 : 1;
  }
  last_ = now;
  print(done, false);
}

void Progress::finish(int64_t done) {
  if (off_) return;
  print(done, true);
}

void Progress::print(int64_t done, bool final) {
  double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  double qps = el > 0 ? static_cast<double>(done) / el : 0;
  double eta = qps > 0 ? static_cast<double>(total_ - done) / qps : -1;
  double pct = total_ > 0 ? 100.0 * static_cast<double>(done) / static_cast<double>(total_) : 100.0;
  int64_t rss = dalmon_rss_bytes();
  char line[256];
  std::snprintf(line, sizeof line, "dalstress: %5.1f%%  %s/%s  %s q/s  %s %s  RSS %.1f MiB", pct, grouped(done).c_str(),
                grouped(total_).c_str(), grouped(static_cast<int64_t>(qps)).c_str(), final ? "elapsed" : "ETA",
                duration(final ? el : eta).c_str(), rss >= 0 ? static_cast<double>(rss) / 1048576.0 : -1.0);
  if (tty_) {
    std::fprintf(stderr, "\r%s\x1b[K%s", line, final ? "\n" : "");
  } else {
    std::fprintf(stderr, "%s\n", line);
  }
  std::fflush(stderr);
}

}  // namespace dalstress
