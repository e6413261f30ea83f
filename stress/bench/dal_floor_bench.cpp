// dal_floor_bench: what each workload costs through dal.h, next to the floor
// -- SQLite alone doing the same SQL in C (floor/sqlite_floor.hpp says how).
//
//   dal_floor_bench [--workload reference,rows,write,mixed] [--queries N]
//                   [--rounds R] [--threads 1,2] [--only dal|floor] [--dump]
//
// Per workload, each round runs, for each thread count, the DAL and the
// floor on the same batch of queries (requests built before the clock
// starts), in alternating order, every answer checked. The median round is
// reported, with the ratios taken within each round (drift hits both paths
// alike). A benchmark, not a test: it prints numbers and fails only on a
// wrong answer. docs/benchmarks.md has the results and the commands.
//
// --only runs one path, one thread, one round after a warm-up, with
// callgrind instrumentation on for exactly the timed queries:
// stress/bench/instructions.sh counts instructions per query with it.
#include <dal.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "floor/dal_path.hpp"
#include "floor/sqlite_floor.hpp"
#include "floor/team.hpp"
#include "floor/workload.hpp"
#include "reference_workload.hpp"
#include "temp_dir.hpp"

using namespace floorbench;

namespace {

// A wrong answer: the run stops, its data directory is removed, exit 1.
struct WrongAnswer : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "dal_floor_bench: %s\n", what.c_str());
  std::exit(2);
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= s.size()) {
    size_t comma = s.find(',', at);
    if (comma == std::string::npos) comma = s.size();
    out.push_back(s.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

long positive(const std::string& flag, const char* v) {
  char* end = nullptr;
  long n = std::strtol(v, &end, 10);
  if (*v == '\0' || *end != '\0' || n <= 0) die(flag + " wants a positive integer, got \"" + v + "\"");
  return n;
}

constexpr const char* kUsage =
    "usage: dal_floor_bench [--workload reference,rows,write,mixed] [--queries N per thread and run]\n"
    "                       [--rounds R] [--threads 1,2] [--only dal|floor] [--dump]\n"
    "(docs/benchmarks.md, \"Workloads against SQLite alone\")";

struct Options {
  std::vector<std::string> workloads = {"reference", "rows", "write"};
  // Short runs, many rounds: each DAL run sits next to its floor run in
  // time, so a change in the machine's load hits both.
  long queries = 5000;  // per thread and run
  int rounds = 21;
  std::vector<int> threads = {1, 2};
  std::string only;     // "", "dal" or "floor"
  std::string corrupt;  // test only: "dal" or "floor" gets one wrong expected answer
  bool dump = false;    // print requests and answers instead of running
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--workload") {
      o.workloads = split(value());
    } else if (a == "--queries") {
      o.queries = positive(a, value());
    } else if (a == "--rounds") {
      o.rounds = static_cast<int>(positive(a, value()));
    } else if (a == "--threads") {
      o.threads.clear();
      for (const auto& t : split(value())) o.threads.push_back(static_cast<int>(positive(a, t.c_str())));
    } else if (a == "--only") {
      o.only = value();
      if (o.only != "dal" && o.only != "floor") die("--only is dal or floor");
    } else if (a == "--dump") {
      o.dump = true;
    } else if (a == "--corrupt-answer") {
      o.corrupt = value();
      if (o.corrupt != "dal" && o.corrupt != "floor") die("--corrupt-answer is dal or floor");
    } else if (a == "-h" || a == "--help") {
      std::printf("%s\n", kUsage);
      std::exit(0);
    } else {
      die("unknown argument " + a + "\n" + kUsage);
    }
  }
  for (const auto& w : o.workloads)
    if (!find_workload(w)) die("unknown workload \"" + w + "\"; known: " + workload_names());
  if (!o.only.empty()) o.threads = {1};
  return o;
}

// Nanoseconds of one run, per query once divided.
struct Cost {
  double wall = 0, cpu = 0;
};

double process_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Makes the expected answer of q wrong (the checks must catch it).
void corrupt(Query& q) {
  // The id "i" is the first value of every answer, at byte 3 ({, "i"): change
  // its last byte, so the answer stays well-formed and only its value differs.
  const uint8_t tag = q.response[3];
  const size_t width = tag == 0xcf ? 8 : tag == 0xce ? 4 : tag == 0xcd ? 2 : tag == 0xcc ? 1 : 0;
  q.response[3 + width] ^= 1;
  q.answer.ra += 1;
  q.answer.error += "!";
  q.digest.numbers ^= 1;
}

// One workload's benchmark: both paths set up on their own database file in
// one data directory, with the same schema and seed.
class Bench {
 public:
  Bench(const Workload& w, const Options& o)
      : w_(w), o_(o), max_threads_(*std::max_element(o.threads.begin(), o.threads.end())), team_(max_threads_) {
    // The DAL first: it configures the process's SQLite before anything
    // initializes it (a later sqlite3_config would fail), and the floor
    // then runs under the same configuration.
    dal_ = std::make_unique<DalPath>(dir_.path());
    create_database(dir_.file(w.db), w.schema);
    create_database(dir_.file("floor-" + w.db), w.schema);
    floor_ = std::make_unique<SqliteFloor>(dir_.file("floor-" + w.db), w, max_threads_);
    std::vector<uint8_t> buf(kBufferBytes);
    std::string why;
    for (const Query& q : w.seed()) {
      if (!dal_->run(q, buf, &why)) throw WrongAnswer("seed through the DAL: " + why);
      if (!floor_->run(0, q, &why)) throw WrongAnswer("seed through SQLite: " + why);
    }
    // Whole cycles of the workload per run, so every run leaves the tables
    // as it found them.
    per_run_ = (o.queries + w.steps - 1) / w.steps * w.steps;
    next_n_.assign(max_threads_, 0);
    buffers_.assign(max_threads_, std::vector<uint8_t>(kBufferBytes));
  }

  void run() {
    if (w_.name == "reference") {  // the encoder against the protocol's own bytes
      Query q = w_.query(0, 0);
      if (q.request != dalkit::reference::request() || q.response != dalkit::reference::response())
        throw WrongAnswer("the reference request or answer differs from dal-shim/common/reference_workload.hpp");
    }
    // Warm-up, about 2,000 queries per thread (whole cycles): statements
    // prepared, Go's threads and the DAL's pools started, the WAL grown.
    // The same whatever --queries says, so that runs of different lengths
    // differ by their timed queries only (syscalls.sh relies on it).
    const long warm_up = (2000 / w_.steps + 1) * w_.steps;
    for (int k : o_.threads) {
      auto batch = make_batch(k, warm_up);
      if (o_.only != "floor") measure(k, batch, true);
      if (o_.only != "dal") measure(k, batch, false);
    }
    if (!o_.only.empty()) return instrumented();
    std::vector<std::vector<Cost>> dal_cost(o_.threads.size()), floor_cost(o_.threads.size());
    for (int r = 0; r < o_.rounds; ++r) {
      for (size_t i = 0; i < o_.threads.size(); ++i) {
        const int k = o_.threads[i];
        auto batch = make_batch(k, per_run_);
        const bool dal_first = (r + static_cast<int>(i)) % 2 == 0;
        for (int side = 0; side < 2; ++side) {
          const bool dal = (side == 0) == dal_first;
          if (r == 0 && !o_.corrupt.empty() && (o_.corrupt == "dal") == dal) corrupt(batch[0][0]);
          Cost c = measure(k, batch, dal);
          c.wall /= static_cast<double>(k * per_run_);
          c.cpu /= static_cast<double>(k * per_run_);
          (dal ? dal_cost : floor_cost)[i].push_back(c);
        }
      }
    }
    report(dal_cost, floor_cost);
  }

 private:
  static constexpr size_t kBufferBytes = 64 * 1024;  // larger than any answer of these workloads
  using Batch = std::vector<std::vector<Query>>;

  // The next `count` queries of threads 0..k-1.
  Batch make_batch(int k, long count) {
    Batch b(k);
    for (int t = 0; t < k; ++t) {
      b[t].reserve(count);
      for (long j = 0; j < count; ++j) b[t].push_back(w_.query(t, next_n_[t]++));
    }
    return b;
  }

  // Runs a batch through one path on k threads; wall and process CPU
  // nanoseconds.
  Cost measure(int k, const Batch& b, bool dal) {
    const double cpu0 = process_cpu_ns();
    std::atomic<bool> failed{false};
    std::mutex m;
    std::string failure;
    auto ns = team_.run(k, [&](int t) {
      std::string why;
      for (const Query& q : b[t]) {
        const bool ok = dal ? dal_->run(q, buffers_[t], &why) : floor_->run(t, q, &why);
        if (!ok) {
          std::lock_guard lock(m);
          failure = "request id " + std::to_string(q.id) + " (thread " + std::to_string(t) + "): " + why;
          failed = true;
          return;
        }
        if (failed.load(std::memory_order_relaxed)) return;
      }
    });
    if (failed)
      throw WrongAnswer(std::string("wrong answer from ") + (dal ? "dal" : "floor") + ", workload " + w_.name + ": " +
                        failure);
    checked_ += static_cast<long>(b.size()) * static_cast<long>(b[0].size());
    return {static_cast<double>(ns.count()), process_cpu_ns() - cpu0};
  }

  void instrumented() {
    auto batch = make_batch(1, per_run_);
    const bool dal = o_.only == "dal";
    CALLGRIND_START_INSTRUMENTATION;
    const double ns = measure(1, batch, dal).wall;
    CALLGRIND_STOP_INSTRUMENTATION;
    std::printf("dal_floor_bench: workload %s, %s alone: %ld instrumented queries, %.1f ns per query\n",
                w_.name.c_str(), dal ? "dal_query_into" : "SQLite (floor)", per_run_,
                ns / static_cast<double>(per_run_));
  }

  // Wall time per query is the run's wall time over all its threads'
  // queries (throughput at k threads over throughput at 1 is ns(1) / ns(k)).
  // CPU time per query is the whole process's (every thread: Go's GC and
  // scheduler included) over the same queries: it leaves out time spent
  // waiting -- for the disk (the write workloads' checkpoint fsyncs) or for a
  // core the machine's other work holds -- so it moves less under load.
  void report(const std::vector<std::vector<Cost>>& dal, const std::vector<std::vector<Cost>>& floor) {
    std::printf("\nworkload %s: %d rounds x %ld queries per thread, median round (%s)\n", w_.name.c_str(), o_.rounds,
                per_run_, dal_version_string());
    std::printf("  %-8s %12s %12s %10s   %12s %12s %10s\n", "threads", "floor wall", "dal wall", "dal/floor",
                "floor cpu", "dal cpu", "dal/floor");
    auto column = [&](const std::vector<Cost>& v, double Cost::*m) {
      std::vector<double> out;
      for (const Cost& c : v) out.push_back(c.*m);
      return out;
    };
    auto ratio = [&](size_t i, double Cost::*m) {
      std::vector<double> out;
      for (int r = 0; r < o_.rounds; ++r) out.push_back(dal[i][r].*m / (floor[i][r].*m));
      return median(out);
    };
    for (size_t i = 0; i < o_.threads.size(); ++i)
      std::printf("  %-8d %9.0f ns %9.0f ns %9.3fx   %9.0f ns %9.0f ns %9.3fx\n", o_.threads[i],
                  median(column(floor[i], &Cost::wall)), median(column(dal[i], &Cost::wall)), ratio(i, &Cost::wall),
                  median(column(floor[i], &Cost::cpu)), median(column(dal[i], &Cost::cpu)), ratio(i, &Cost::cpu));
    for (size_t i = 1; i < o_.threads.size() && o_.threads[0] == 1; ++i) {
      std::vector<double> fs, ds, rel;
      for (int r = 0; r < o_.rounds; ++r) {
        const double f = floor[0][r].wall / floor[i][r].wall, d = dal[0][r].wall / dal[i][r].wall;
        fs.push_back(f), ds.push_back(d), rel.push_back(d / f);
      }
      std::printf(
          "  %d-thread scaling (queries/s vs 1 thread): floor %.3fx, dal %.3fx; dal/floor %.3f (goal >= 0.9: %s)\n",
          o_.threads[i], median(fs), median(ds), median(rel), median(rel) >= 0.9 ? "met" : "not met");
    }
    const double goal = w_.name == "reference" ? 1.25 : w_.name == "rows" ? 1.5 : w_.name == "write" ? 1.3 : 0;
    if (goal > 0 && o_.threads[0] == 1)
      std::printf("  goal (1 thread, wall time): dal <= %.2fx floor: %s\n", goal,
                  ratio(0, &Cost::wall) <= goal ? "met" : "not met");
    std::printf("  answers checked: %ld, all right; %ld DAL answers equal in value but not in bytes\n", checked_,
                dal_->reencoded());
  }

  const Workload& w_;
  const Options& o_;
  const int max_threads_;
  dalkit::TempDir dir_{"dal-floor"};
  Team team_;
  std::unique_ptr<DalPath> dal_;
  std::unique_ptr<SqliteFloor> floor_;
  long per_run_ = 0;
  long checked_ = 0;
  std::vector<uint64_t> next_n_;
  std::vector<std::vector<uint8_t>> buffers_;
};

}  // namespace

// --dump: each workload's seed, then threads 0 and 1's first two cycles, one
// query a line: "<workload> seed|<t> <n> <request hex> <answer hex>".
// stress/bench/floor/workloads-match.test.js compares them with what
// stress/workloads/*.json expands to, so the hand-written requests and
// answers are the workload's.
void dump(const Options& o) {
  auto hex = [](const std::vector<uint8_t>& b) {
    std::string out;
    char two[3];
    for (uint8_t x : b) std::snprintf(two, sizeof two, "%02x", x), out += two;
    return out;
  };
  for (const auto& name : o.workloads) {
    const Workload& w = *find_workload(name);
    for (const Query& q : w.seed())
      std::printf("%s seed - %s %s\n", name.c_str(), hex(q.request).c_str(), hex(q.response).c_str());
    for (int t = 0; t < 2; ++t)
      for (uint64_t n = 0; n < 2 * static_cast<uint64_t>(w.steps); ++n) {
        Query q = w.query(t, n);
        std::printf("%s %d %llu %s %s\n", name.c_str(), t, static_cast<unsigned long long>(n), hex(q.request).c_str(),
                    hex(q.response).c_str());
      }
  }
}

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // the report before any error, in order
  const Options o = parse(argc, argv);
  if (o.dump) {
    dump(o);
    return 0;
  }
  try {
    for (const auto& name : o.workloads) Bench(*find_workload(name), o).run();
  } catch (const WrongAnswer& e) {
    std::fprintf(stderr, "dal_floor_bench: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dal_floor_bench: %s\n", e.what());
    return 2;
  }
  return 0;
}
