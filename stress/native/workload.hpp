// workload.hpp -- a workload of docs/workloads.md, loaded from
// stress/workloads/<name>.json (or any file) and compiled for expansion.
//
// Loading validates everything that can be checked without running: the
// JSON, every key, every template and expression (an unknown variable is an
// error here), and one trial expansion of each seed entry and of every step
// of thread 0's first cycle, so that a division by zero or a negative
// $repeat count stops dalstress before its first query (exit 2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "expr.hpp"
#include "workload_template.hpp"

namespace dalstress {

// Variable slots every step has (docs/workloads.md, "Variables"); lets and
// $repeat variables follow.
inline constexpr int kSlotT = 0, kSlotN = 1, kSlotC = 2, kSlotId = 3;

struct WorkloadLet {
  int slot;
  Expr expr;
};

struct WorkloadStep {
  std::optional<uint64_t> id;     // a literal "id", else (t + 1) * 2^32 + n
  std::vector<WorkloadLet> lets;  // the workload's, then the step's own
  Template commands, expect;
};

struct WorkloadSeed {
  int var_slot;
  int64_t count;
  Template commands, expect;
};

// One expanded query: its id, request bytes and expected answer bytes.
struct ExpandedQuery {
  uint64_t id = 0;
  Bytes request;
  Bytes expect;
};

// What a workload is loaded for: the backend picks each {"$backend": ...}
// branch (workload_backend.hpp), and a non-empty db is the db every request
// names instead of the file's (on PostgreSQL, the run's own schema).
struct WorkloadTarget {
  std::string backend = "sqlite";
  std::string db;
};

class Workload {
 public:
  // Where --workload NAME is looked up, in order: `workloads/` beside the
  // executable (the build copies stress/workloads/ there), then
  // stress/workloads/ under the current directory (the repository root).
  static std::vector<std::string> directories();
  // The workload names: every NAME.json in directories(), sorted.
  static std::vector<std::string> names();
  // Where --workload NAME_OR_PATH is read from: a file path as given if it
  // contains '/' or ends in ".json"; else NAME.json from the first of
  // directories() that has it.  Throws WorkloadError for a name found nowhere.
  static std::string locate(const std::string& name_or_path);
  // Load and compile a file.  Throws WorkloadError with the path in the message.
  static Workload load(const std::string& path, const WorkloadTarget& target = {});
  // Compile JSON text (path is for messages only).
  static Workload parse(const std::string& text, const std::string& path, const WorkloadTarget& target = {});

  const std::string& name() const { return name_; }
  const std::string& db() const { return db_; }
  const std::string& schema() const { return schema_; }
  const std::string& path() const { return path_; }
  size_t steps() const { return steps_.size(); }
  int slots() const { return slots_; }
  // True if every query is the same bytes with the same answer: one step
  // with a literal id and no variable (the reference workload).  Drivers
  // then encode once and never expand per query.
  bool constant() const;
  // Number of seed requests in total.
  int64_t seed_queries() const;

  // Expand thread t's query n into q (buffers reused).  env must hold
  // slots() values.  Throws WorkloadError (division by zero, ...).
  void expand(int t, int64_t n, int64_t* env, ExpandedQuery& q) const;
  // Expand seed request k (0-based, over all entries in order) into q.
  void expand_seed(int64_t k, int64_t* env, ExpandedQuery& q) const;

 private:
  void request_into(uint64_t id, const Template& commands, int64_t* env, Bytes& out) const;

  std::string name_, summary_, db_, schema_, path_;
  std::vector<WorkloadSeed> seed_;
  std::vector<WorkloadStep> steps_;
  Bytes db_field_;  // "db" <db> "commands", encoded once
  int slots_ = 0;
};

}  // namespace dalstress
