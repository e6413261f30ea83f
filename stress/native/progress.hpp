// progress.hpp -- progress on stderr: one updating line on a TTY, plain
// periodic lines otherwise (logs, CI).
#pragma once

#include <chrono>
#include <cstdint>

#include "options.hpp"

namespace dalstress {

class Progress {
 public:
  Progress(ProgressStyle style, int64_t total);
  // Cheap enough to call after every chunk of queries: it only prints when
  // it is time to (4 times a second on a TTY; every 10 % or 30 s otherwise).
  void update(int64_t done);
  // Final line (and newline on a TTY).
  void finish(int64_t done);

 private:
  void print(int64_t done, bool final);

  bool tty_ = false, off_ = false;
  int64_t total_;
  std::chrono::steady_clock::time_point t0_, last_;
  int64_t next_plain_ = 0;
};

}  // namespace dalstress
