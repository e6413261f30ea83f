// fakes.hpp -- a scripted process for driving the whole Monitor pipeline.
#pragma once

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "metrics.hpp"
#include "monitor.hpp"
#include "native_stats_source.hpp"
#include "process_probe.hpp"

namespace fakes {

constexpr double kMiB = 1024.0 * 1024.0;

// Every layer at a plausible baseline with small jitter; optionally one layer
// leaking 16 B/query (or, for object counts, one object per 10,000 queries).
struct World {
  int64_t q = 0;
  std::optional<dalmon::Layer> leak;
  uint64_t seed = 12345;

  double jitter(double amp) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return amp * (static_cast<double>(seed >> 11) / static_cast<double>(1ull << 53));
  }
  int64_t bytes(dalmon::Layer l, double base, double amp) {
    double v = base + jitter(amp);
    if (leak == l) v += 16.0 * static_cast<double>(q);
    return static_cast<int64_t>(v);
  }
  int64_t objects(dalmon::Layer l, double base) {
    double v = base + std::floor(jitter(2.0));
    if (leak == l) v += std::floor(static_cast<double>(q) / 10'000);
    return static_cast<int64_t>(v);
  }
};

class FakeSource final : public dalmon::NativeStatsSource {
 public:
  explicit FakeSource(World& w) : w_(w) {}
  bool read(bool force_gc, dalmon::NativeStats& o) noexcept override {
    using dalmon::Layer;
    last_force_gc = force_gc;
    ++reads;
    if (!dal_loaded) return false;  // as the shim's source without a DAL loaded
    o.go_heap_alloc = w_.bytes(Layer::GoHeap, 3 * kMiB, 64 * 1024);
    o.go_heap_inuse = o.go_heap_alloc + 512 * 1024;
    o.go_gc_cycles = reads;
    o.go_sys = 20 * kMiB;
    o.sqlite_memory_used = w_.bytes(Layer::Sqlite, 2 * kMiB, 16 * 1024);
    o.dal_buffers_live = w_.objects(Layer::DalBuffers, 0);
    o.dal_buffer_bytes_live = o.dal_buffers_live * 34;
    o.dal_statements_live = w_.objects(Layer::Statements, 4);
    o.sqlite_connections = 2;
    o.shim_buffers_live = w_.objects(Layer::ShimBuffers, 0);
    o.shim_buffer_bytes_live = o.shim_buffers_live * 121;
    // A DAL on PostgreSQL: its goroutines, a pool of two connections the
    // server sees, their prepared statements.
    o.goroutines = w_.objects(Layer::Goroutines, 12);
    if (!postgres) return true;  // the DAL reports -1 for the PostgreSQL figures
    o.pg_connections = w_.objects(Layer::PgConnections, 2);
    o.pg_server_sessions = w_.objects(Layer::PgServerSessions, 2);
    o.pg_statements = w_.objects(Layer::PgStatements, 4);
    o.pg_pool_total = 2;
    o.pg_pool_idle = 2;
    o.pg_pool_acquired = 0;
    o.pg_replica_skips = 0;
    return true;
  }
  bool last_force_gc = false;
  int64_t reads = 0;
  bool dal_loaded = true;  // false: nothing to read, as with a --target that does not use the DAL
  bool postgres = true;    // false: a DAL on SQLite only (no PostgreSQL handle open)

 private:
  World& w_;
};

class FakeProbe final : public dalmon::ProcessProbe {
 public:
  explicit FakeProbe(World& w) : w_(w) {}
  dalmon::ProcessFigures read() noexcept override {
    dalmon::ProcessFigures f;
    f.rss = w_.bytes(dalmon::Layer::Rss, 48 * kMiB, 1.5 * kMiB);  // page/arena noise
    f.malloc_in_use = w_.bytes(dalmon::Layer::Malloc, 6 * kMiB, 256 * 1024);
    cpu += 0.01;
    f.cpu_user_s = cpu;
    return f;
  }

 private:
  World& w_;
  double cpu = 0;
};

inline dalmon::JsFigures js_of(World& w) {
  dalmon::JsFigures js;
  js.heap_used = w.bytes(dalmon::Layer::JsHeap, 5 * kMiB, 512 * 1024);
  js.heap_total = 8 * static_cast<int64_t>(kMiB);
  js.external = w.bytes(dalmon::Layer::JsExternal, 2 * kMiB, 256 * 1024);
  js.array_buffers = js.external / 2;
  return js;
}

// A Monitor over the scripted world, started with `params` (a bad string
// throws: it is a bug in the test).
struct FakeRun {
  World w;
  FakeSource src{w};
  std::unique_ptr<dalmon::Monitor> m;

  explicit FakeRun(const std::string& params, std::optional<dalmon::Layer> leak = std::nullopt) {
    w.leak = leak;
    dalmon::RunParams p;
    std::string err;
    if (!dalmon::parse_run_params(params, p, err)) throw std::runtime_error(params + ": " + err);
    m = std::make_unique<dalmon::Monitor>(p, &src, std::make_unique<FakeProbe>(w));
  }

  // Samples at queries 0, every, 2*every, ... up to `last` (with the JS
  // figures if `js`), then counts `last` answered queries of 87 + 34 bytes.
  void sample_to(int64_t last, int64_t every, bool js = true) {
    std::string err;
    for (w.q = 0; w.q <= last; w.q += every)
      if (m->sample(w.q, js ? js_of(w) : dalmon::JsFigures{}, err) < 0) throw std::runtime_error(err);
    m->count(last, 87 * last, 34 * last, 0);
  }
};

// Run 1M fake queries sampled every 10k through a Monitor; returns its result.
inline dalmon::RunResult run_world(std::optional<dalmon::Layer> leak = std::nullopt, const char* extra_params = "") {
  FakeRun run(std::string("driver=fake;queries=1000000;sample_every=10000;") + extra_params, leak);
  run.sample_to(1'000'000, 10'000);
  return run.m->finish();
}

}  // namespace fakes
