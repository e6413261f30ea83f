// workload_template.hpp -- a JSON value of a workload's `commands` or
// `expect`, compiled once into a tree that writes its MessagePack encoding
// for given variable values (docs/workloads.md, "Templates").
//
// Every subtree without a template in it is encoded once, at compile time,
// into constant bytes: expanding it is a copy.  Maps keep the file's key
// order (nlohmann::ordered_json), because key order is part of the request
// (the DAL builds SQL in that order) and of the expected answer.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "expr.hpp"

namespace dalstress {

using Bytes = std::vector<uint8_t>;

// The stream msgpack-c's packer appends to: the end of a byte vector.
struct ByteSink {
  Bytes* out;
  void write(const char* p, size_t n) { out->insert(out->end(), p, p + n); }
};

// The variables visible at one place of a workload, by slot.  Slots are
// indices into the environment array the expansion runs with; `slots` is
// shared by every scope of a workload and counts the array's size.
class Scope {
 public:
  explicit Scope(int* slots) : slots_(slots) {}
  // Add a variable; throws WorkloadError if the name is taken or invalid.
  int add(const std::string& name, const std::string& at);
  // A variable with a fixed slot (t, n, c, id).
  void bind(const std::string& name, int slot) { names_.emplace_back(name, slot); }
  int find(std::string_view name) const;
  Expr::Lookup lookup() const {
    return [this](std::string_view n) { return find(n); };
  }

 private:
  std::vector<std::pair<std::string, int>> names_;
  int* slots_;
};

class Template {
 public:
  // Compile j; `at` is its path in the file, for messages.  Throws
  // WorkloadError for a malformed template or an unknown variable.
  static Template compile(const nlohmann::ordered_json& j, const Scope& scope, const std::string& at);

  Template();
  Template(Template&&) noexcept;
  Template& operator=(Template&&) noexcept;
  ~Template();

  // Append the MessagePack encoding of the value for env.  The env array is
  // written too ($repeat variables).  Throws WorkloadError (division by
  // zero, negative count, ...).
  void expand(int64_t* env, Bytes& out) const;
  // True if the value never changes (no variable anywhere).
  bool constant() const noexcept;
  // True if the template is a JSON array (checked for `commands`).
  bool is_array() const noexcept;

  struct Node;

 private:
  explicit Template(std::unique_ptr<Node> root);
  std::unique_ptr<Node> root_;
};

// MessagePack of a JSON value without templates (what Template encodes for
// constant subtrees).  Integers in the file are integers, numbers with a
// fraction or exponent float64.
void encode_json(const nlohmann::ordered_json& j, Bytes& out);

}  // namespace dalstress
