// expr.hpp -- the integer expressions of workload templates (docs/workloads.md,
// "Templates"): 64-bit integers, decimal literals, variables, + - * / %,
// unary minus and parentheses with C precedence.  / and % truncate toward
// zero as in C.  Overflow and division by zero are errors (WorkloadError),
// never a wrapped or undefined value.
//
// An expression is compiled once, with its variable names resolved to slots
// of an environment array, into postfix code; evaluating it is a loop over
// that code with a small fixed stack: no allocation per query.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "workload_error.hpp"

namespace dalstress {

class Expr {
 public:
  // Resolves a variable name to its slot, or -1 if no such variable exists.
  using Lookup = std::function<int(std::string_view)>;

  // Compile text; `at` names the place in the workload for error messages.
  // Throws WorkloadError on a syntax error or an unknown variable.
  static Expr compile(std::string_view text, const Lookup& lookup, const std::string& at);
  // A constant expression (a JSON integer written where an expression may be).
  static Expr literal(int64_t v);

  // Evaluate with env[slot] as the variables' values.  Throws WorkloadError
  // on division by zero or overflow.
  int64_t eval(const int64_t* env) const;
  // True if the expression uses no variable.
  bool constant() const noexcept { return constant_; }
  const std::string& text() const noexcept { return text_; }

  // Deepest evaluation stack an expression may need (deeper ones are refused).
  static constexpr int kMaxDepth = 32;

 private:
  enum class Op : uint8_t { Lit, Var, Neg, Add, Sub, Mul, Div, Mod };
  struct Code {
    Op op;
    int64_t v;  // Lit: the value; Var: the slot
  };
  friend class ExprParser;

  std::vector<Code> code_;
  std::string text_;
  std::string at_;
  bool constant_ = true;
};

}  // namespace dalstress
