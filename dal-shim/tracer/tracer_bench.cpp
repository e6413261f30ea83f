// tracer_bench.cpp -- the cost of libdalkit_tracer.so per allocation
// (reported, never pass/fail).  It runs itself as a child four times: without
// the tracer, with it in sampled mode (64 KiB, the default, and 512 KiB,
// tcmalloc's default) and in exact mode, and prints ns per malloc/free pair
// for two call paths:
//   malloc   malloc() called directly by this program (the tracer's return
//            address is already outside libc: no stack walk)
//   new      operator new[] / delete[] (malloc's caller is libstdc++: a
//            recorded allocation costs a stack walk)
// Usage: dalkit_tracer_bench [--tracer PATH] [--pairs N]
// (default: libdalkit_tracer.so beside this program, 20,000,000 pairs).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;

namespace {

// Sizes cycle over 16..520 B; a window of 64 blocks stays live so the
// allocator does not hand back the same chunk every time.
template <typename Alloc, typename Free>
double ns_per_pair(long pairs, Alloc alloc, Free release) {
  constexpr int kWindow = 64;
  void* live[kWindow] = {};
  auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < pairs; ++i) {
    int slot = int(i % kWindow);
    if (live[slot]) release(live[slot]);
    live[slot] = alloc(size_t(16 + (i * 8) % 512));
    static_cast<volatile char*>(live[slot])[0] = 1;
  }
  auto t1 = std::chrono::steady_clock::now();
  for (void* p : live) release(p);
  return std::chrono::duration<double, std::nano>(t1 - t0).count() / double(pairs);
}

int child(long pairs) {
  double m = ns_per_pair(
      pairs, [](size_t n) { return std::malloc(n); }, [](void* p) { std::free(p); });
  double n = ns_per_pair(
      pairs, [](size_t k) { return static_cast<void*>(new char[k]); }, [](void* p) { delete[] static_cast<char*>(p); });
  std::printf("%.2f %.2f\n", m, n);
  return 0;
}

bool run(const std::string& self, const char* tracer, const char* sample, long pairs, double& m, double& n) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, "LD_PRELOAD=", 11) && std::strncmp(*e, "DALKIT_TRACER_", 14)) env.emplace_back(*e);
  }
  if (tracer) {
    env.push_back(std::string("LD_PRELOAD=") + tracer);
    env.push_back(std::string("DALKIT_TRACER_SAMPLE_BYTES=") + sample);
  }
  std::vector<char*> envp;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string pairs_arg = std::to_string(pairs);
  char* argv[] = {const_cast<char*>(self.c_str()), const_cast<char*>("--child"), pairs_arg.data(), nullptr};
  int fds[2];
  if (pipe(fds) != 0) return false;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  pid_t pid;
  int rc = posix_spawn(&pid, self.c_str(), &fa, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc != 0) return false;
  char buf[128] = {};
  ssize_t got = read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return got > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && std::sscanf(buf, "%lf %lf", &m, &n) == 2;
}

}  // namespace

int main(int argc, char** argv) {
  long pairs = 20000000;
  std::string tracer;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--child") && i + 1 < argc) return child(std::atol(argv[i + 1]));
    if (!std::strcmp(argv[i], "--tracer") && i + 1 < argc)
      tracer = argv[++i];
    else if (!std::strcmp(argv[i], "--pairs") && i + 1 < argc)
      pairs = std::atol(argv[++i]);
    else {
      std::fprintf(stderr, "usage: dalkit_tracer_bench [--tracer PATH] [--pairs N]\n");
      return 2;
    }
  }
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return 2;
  self[n] = '\0';
  if (tracer.empty()) {
    tracer = self;
    tracer = tracer.substr(0, tracer.rfind('/') + 1) + "libdalkit_tracer.so";
  }
  struct Mode {
    const char* name;
    const char* sample;
  };
  const Mode modes[] = {{"no tracer", nullptr}, {"sampled 64 KiB", "64k"}, {"sampled 512 KiB", "512k"}, {"exact", "0"}};
  std::printf("ns per allocate/free pair, %ld pairs, sizes 16..520 B (%s)\n", pairs, tracer.c_str());
  std::printf("%-16s %10s %8s %10s %8s\n", "mode", "malloc", "ratio", "new[]", "ratio");
  double base_m = 0, base_n = 0;
  for (const Mode& mode : modes) {
    double m = 0, k = 0;
    if (!run(self, mode.sample ? tracer.c_str() : nullptr, mode.sample, pairs, m, k)) {
      std::fprintf(stderr, "dalkit_tracer_bench: the %s run failed\n", mode.name);
      return 2;
    }
    if (!mode.sample) base_m = m, base_n = k;
    std::printf("%-16s %10.2f %7.2fx %10.2f %7.2fx\n", mode.name, m, m / base_m, k, k / base_n);
  }
  return 0;
}
