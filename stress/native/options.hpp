// options.hpp -- command line of dalstress (docs/dalstress.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dalstress {

enum class Via { Direct, Libffi };
enum class Mode { Into, Alloc };
enum class ProgressStyle { Auto, Line, Plain, Off };

struct Options {
  std::string workload = "reference";  // --workload: a name of stress/workloads/, or a .json path
  int64_t queries = 100'000'000;
  int threads = 1;
  int64_t sample_every = 0;  // 0: default (queries/100, clamped to [1, 1,000,000])
  std::string db_dir;        // empty: a fresh temporary directory, removed at the end
  std::string postgres;      // --postgres: "local", a postgres:// URL, or empty (SQLite)
  std::string json_path;     // empty: no JSON file
  std::string html_path;     // empty: no HTML report
  std::string plant_layer;   // empty: no planted leak
  int64_t plant_bytes = 0;
  double warmup_share = 0.2;
  Via via = Via::Direct;
  Mode mode = Mode::Into;
  int64_t latency_every = 16;  // mean gap between individually timed queries
  int64_t max_errors = 1000;   // stop issuing queries after this many errors
  ProgressStyle progress = ProgressStyle::Auto;
  std::vector<std::string> monitor_params;  // extra key=value for dalmon_start
  bool verbose = false;                     // text report lists every sample (monitor verbose=1)
  bool confirm = false;                     // --confirm: a borderline run is repeated with twice the queries
  bool attribute = false;                   // --attribute: run under the allocation tracer (attribute.hpp)
  bool help = false;

  // The workload's backend: "postgres" with --postgres, else "sqlite".
  const char* backend() const { return postgres.empty() ? "sqlite" : "postgres"; }
  int64_t effective_sample_every() const;
  // The option string for dalshim_open ("" = defaults).
  std::string dal_open_options() const;
  // The parameter string for dalmon_start; the workload's name goes into
  // its mode text ("into via direct workload rows"), which both reports show.
  std::string monitor_params_string(const std::string& runtime, const std::string& workload_name) const;
};

const char* via_name(Via v);
const char* mode_name(Mode m);

// Parse argv.  On failure returns false and sets `error` (the caller prints
// it with the usage text and exits 2).
bool parse_options(int argc, char** argv, Options& out, std::string& error);

// The usage text (for --help on stdout, and after a bad flag on stderr).
std::string usage();

// Layers a leak can be planted in, and whether it is available today.
struct PlantLayer {
  const char* name;
  const char* shows_in;  // monitor layer(s) where it must show up
};
const std::vector<PlantLayer>& plant_layers();

}  // namespace dalstress
