// options.cpp -- parsing and validation of dalstress's command line.
#include "options.hpp"

#include <algorithm>
#include <sstream>

#include "grouped.hpp"
#include "kv_options.hpp"
#include "numbers.hpp"
#include "postgres.hpp"

namespace dalstress {

namespace {

// Counts typed by people: "100000000", "1e8", "100_000_000", "1,000,000"
// (dalkit_common's one number parser, the same as dalmon_start's).  The
// caller checks the range, which also refuses negative values.
bool parse_count(const std::string& text, int64_t& out) {
  const auto v = dalkit::parse_int(text);
  if (!v) return false;
  out = *v;
  return true;
}

}  // namespace

const char* via_name(Via v) { return v == Via::Direct ? "direct" : "libffi"; }
const char* mode_name(Mode m) { return m == Mode::Into ? "into" : "alloc"; }

const std::vector<PlantLayer>& plant_layers() {
  static const std::vector<PlantLayer> layers = {
      {"go_cmem", "malloc (and rss)"},
      {"go_heap", "go_heap"},
      {"sqlite_stmt", "sqlite (and statements)"},
      {"shim_malloc", "malloc (and rss)"},
      // Objects, not bytes: one every B queries (plant_leak_every).
      {"goroutine", "goroutines"},
      {"connection", "pg_connections and pg_server_sessions"},
  };
  return layers;
}

int64_t Options::effective_sample_every() const {
  if (sample_every > 0) return sample_every;
  return std::clamp<int64_t>(queries / 100, 1, 1'000'000);
}

std::string Options::dal_open_options() const {
  if (plant_layer.empty()) return "";
  const bool counted = plant_layer == "goroutine" || plant_layer == "connection";
  return "plant_leak=" + plant_layer + (counted ? ";plant_leak_every=" : ";plant_leak_bytes=") +
         std::to_string(plant_bytes);
}

std::string Options::monitor_params_string(const std::string& runtime, const std::string& workload_name) const {
  std::ostringstream o;
  o << "driver=dalstress;runtime=" << runtime << ";mode=" << mode_name(mode) << " via " << via_name(via) << " workload "
    << workload_name;
  if (!postgres.empty()) o << " on postgres";
  if (!plant_layer.empty()) o << " planted " << plant_layer << ":" << plant_bytes;
  o << ";queries=" << queries << ";sample_every=" << effective_sample_every() << ";warmup=" << warmup_share
    << ";threads=" << threads << ";force_gc=1";
  if (verbose) o << ";verbose=1";
  for (const auto& p : monitor_params) o << ";" << p;
  return o.str();
}

std::string usage() {
  return R"(usage: dalstress [options]

Runs a workload (default: the reference query, 87-byte request, 34-byte
answer "no such table: data") N times through libdalshim.so's C ABI, checks
every answer, samples memory through the monitor and prints its leak verdict.

  --workload W        a workload by name: reference (default), or any other
                      stress/workloads/W.json (docs/workloads.md), or the
                      path of a workload file (contains '/' or ends in .json)
  --workload-file F   the workload file F, whatever its name
  --queries N         queries in total (default 100,000,000; 1e8, 100_000_000 work)
  --threads N         threads sharing one handle, each issuing queries/N (default 1)
  --via direct|libffi call style: plain C calls, or ffi_call with a cif prepared once
  --mode into|alloc   into: dalshim_query_into with a reused buffer (default)
                      alloc: dalshim_query + dalshim_buffer_size + dalshim_free
  --sample-every N    queries between monitor samples (default queries/100,
                      clamped to 1..1000000)
  --warmup-share F    share of queries treated as warm-up, 0..0.9 (default 0.2)
  --db-dir DIR        data directory, kept after the run; created if missing,
                      but only if its parent directory exists
                      (default: a fresh temporary directory, removed at the end)
  --postgres URL|local
                      run on PostgreSQL instead of SQLite: the database at
                      URL (postgres://USER[:PASSWORD]@HOST:PORT/DB?...), or
                      `local`: a throwaway server started for the run
                      (scripts/lib/pg-cluster.sh; Debian's postgresql, see
                      scripts/deps.sh) and stopped on every exit path.  The
                      requests' db is a schema of this run's own, dropped
                      at its end; the workload's PostgreSQL answers are
                      checked (docs/workloads.md)
  --json FILE         write the JSON report (docs/report-schema.md) to FILE;
                      checked before the first query (an unwritable FILE
                      stops dalstress at once with exit 2)
  --html FILE         write the HTML report (docs/html-report.md) to FILE: one
                      self-contained page with charts; checked like --json
  --plant-leak L:B    plant a leak of B bytes per query in layer L:
                      go_cmem, go_heap, sqlite_stmt (in the DAL) or shim_malloc
                      (in the shim); or one goroutine (goroutine:B) or one
                      PostgreSQL connection (connection:B) every B queries;
                      all passed as dalshim_open options
  --latency-every K   time one query in K on average, individually (default 16;
                      1 = every query)
  --max-errors N      stop after N errors (default 1000); the run then fails
  --monitor-param K=V extra dalmon_start parameter, e.g. slope.rss=4 (repeatable)
  --progress auto|line|plain|off
                      progress on stderr: auto = one updating line on a TTY,
                      plain periodic lines otherwise (default auto)
  --verbose           the text report also lists every sample (the series is
                      always in the JSON report)
  --confirm           when the verdict is borderline (close to a threshold,
                      docs/leak-verdict.md), run again with twice the queries
                      in DIR/confirm; that run's verdict and exit code stand,
                      its reports name the first, and --json/--html get it
  --attribute, --no-attribute
                      name the shared object that holds native memory:
                      dalstress executes itself again with the allocation
                      tracer (libdalkit_tracer.so beside it, or
                      $DALKIT_TRACER) in LD_PRELOAD, and the monitor adds
                      native:<dso> layers (docs/attribution.md); default off
  --help              this text

Ctrl-C (or SIGTERM) stops the run: the report is printed for the queries
done, marked interrupted, with partial verdicts where there are enough
samples; a second Ctrl-C kills at once.

Exit codes: 0 no leak, 1 leak, 2 error (bad flag or path, failed or wrong
answer, too few samples, interrupted).
)";
}

bool parse_options(int argc, char** argv, Options& o, std::string& error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      o.help = true;
      continue;
    }
    if (arg == "--verbose") {
      o.verbose = true;
      continue;
    }
    if (arg == "--confirm") {
      o.confirm = true;
      continue;
    }
    // The default is off (a workload; the JS drivers' --target turns it on).
    if (arg == "--attribute" || arg == "--no-attribute") {
      o.attribute = arg == "--attribute";
      continue;
    }
    if (arg.rfind("--", 0) != 0) {
      error = "unexpected argument '" + arg + "'";
      return false;
    }
    std::string name = arg, value;
    bool has_value = false;
    if (auto eq = arg.find('='); eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    static const char* kKnown[] = {
        "--workload",     "--workload-file", "--queries",    "--threads",       "--via",     "--mode",
        "--sample-every", "--warmup-share",  "--db-dir",     "--postgres",      "--json",    "--html",
        "--plant-leak",   "--latency-every", "--max-errors", "--monitor-param", "--progress"};
    if (std::none_of(std::begin(kKnown), std::end(kKnown), [&](const char* k) { return name == k; })) {
      error = "unknown option '" + name + "'";
      return false;
    }
    if (!has_value) {
      if (i + 1 >= argc) {
        error = "option " + name + " needs a value";
        return false;
      }
      value = argv[++i];
    }
    auto count = [&](int64_t& dst, int64_t lo, int64_t hi) {
      int64_t v = 0;
      if (!parse_count(value, v) || v < lo || v > hi) {
        error = "option " + name + ": '" + value + "' is not an integer in " + grouped(lo) + ".." + grouped(hi);
        return false;
      }
      dst = v;
      return true;
    };
    if (name == "--workload" || name == "--workload-file") {
      if (value.empty()) {
        error = "option " + name + ": empty value";
        return false;
      }
      // --workload-file takes any name as a path: "./" makes it one.
      o.workload = name == "--workload" || value.find('/') != std::string::npos ? value : "./" + value;
    } else if (name == "--queries") {
      if (!count(o.queries, 1, INT64_C(1) << 50)) return false;
    } else if (name == "--threads") {
      int64_t t = 0;
      if (!count(t, 1, 1024)) return false;
      o.threads = static_cast<int>(t);
    } else if (name == "--sample-every") {
      if (!count(o.sample_every, 1, INT64_C(1) << 50)) return false;
    } else if (name == "--latency-every") {
      if (!count(o.latency_every, 1, 1'000'000)) return false;
    } else if (name == "--max-errors") {
      if (!count(o.max_errors, 1, INT64_C(1) << 50)) return false;
    } else if (name == "--warmup-share") {
      const auto share = dalkit::parse_double(value);
      if (!share || *share < 0 || *share > 0.9) {
        error = "option --warmup-share: '" + value + "' is not a number in 0..0.9";
        return false;
      }
      o.warmup_share = *share;
    } else if (name == "--via") {
      if (value == "direct")
        o.via = Via::Direct;
      else if (value == "libffi" || value == "ffi")
        o.via = Via::Libffi;
      else {
        error = "option --via: '" + value + "' (expected direct or libffi)";
        return false;
      }
    } else if (name == "--mode") {
      if (value == "into")
        o.mode = Mode::Into;
      else if (value == "alloc")
        o.mode = Mode::Alloc;
      else {
        error = "option --mode: '" + value + "' (expected into or alloc)";
        return false;
      }
    } else if (name == "--progress") {
      if (value == "auto")
        o.progress = ProgressStyle::Auto;
      else if (value == "line")
        o.progress = ProgressStyle::Line;
      else if (value == "plain")
        o.progress = ProgressStyle::Plain;
      else if (value == "off")
        o.progress = ProgressStyle::Off;
      else {
        error = "option --progress: '" + value + "' (expected auto, line, plain or off)";
        return false;
      }
    } else if (name == "--db-dir") {
      if (value.empty()) {
        error = "option --db-dir: empty directory name";
        return false;
      }
      o.db_dir = value;
    } else if (name == "--postgres") {
      if (value != "local" && !is_postgres_url(value)) {
        error = "option --postgres: expected local or a postgres:// URL, got '" + redacted_url(value) + "'";
        return false;
      }
      o.postgres = value;
    } else if (name == "--json") {
      if (value.empty()) {
        error = "option --json: empty file name";
        return false;
      }
      o.json_path = value;
    } else if (name == "--html") {
      if (value.empty()) {
        error = "option --html: empty file name";
        return false;
      }
      o.html_path = value;
    } else if (name == "--monitor-param") {
      // The monitor parses its parameters with the same k=v parser; one
      // flag must be exactly one pair.
      std::vector<dalkit::KvPair> pairs;
      std::string why;
      if (!dalkit::parse_kv_options(value, pairs, why) || pairs.size() != 1) {
        error =
            "option --monitor-param: '" + value + "' (expected one key=value" + (why.empty() ? "" : ": " + why) + ")";
        return false;
      }
      o.monitor_params.push_back(value);
    } else if (name == "--plant-leak") {
      auto colon = value.find(':');
      if (colon == std::string::npos) {
        error = "option --plant-leak: '" + value + "' (expected LAYER:BYTES, e.g. go_heap:16)";
        return false;
      }
      std::string layer = value.substr(0, colon), bytes = value.substr(colon + 1);
      const auto& layers = plant_layers();
      auto it = std::find_if(layers.begin(), layers.end(), [&](const PlantLayer& l) { return layer == l.name; });
      if (it == layers.end()) {
        error = "option --plant-leak: unknown layer '" + layer +
                "' (expected go_cmem, go_heap, sqlite_stmt, shim_malloc, goroutine or connection)";
        return false;
      }
      int64_t b = 0;
      if (!parse_count(bytes, b) || b < 1 || b > (1 << 20)) {
        error = "option --plant-leak: bytes '" + bytes + "' is not an integer in 1.." + grouped(1 << 20);
        return false;
      }
      o.plant_layer = layer;
      o.plant_bytes = b;
    }
  }
  if (o.help) return true;
  if (!o.postgres.empty() && !o.db_dir.empty()) {
    error = "options --postgres and --db-dir: give one (--db-dir is SQLite's data directory)";
    return false;
  }
  if (o.threads > o.queries) {
    error = "--threads " + grouped(o.threads) + " exceeds --queries " + grouped(o.queries);
    return false;
  }
  if (o.sample_every > o.queries) {
    error = "--sample-every " + grouped(o.sample_every) + " exceeds --queries " + grouped(o.queries);
    return false;
  }
  return true;
}

}  // namespace dalstress
