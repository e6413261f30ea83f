#include "expr.hpp"

#include <cctype>
#include <limits>

namespace dalstress {

// Recursive descent over C's precedence levels:
//   expr   := term { ('+' | '-') term }
//   term   := unary { ('*' | '/' | '%') unary }
//   unary  := '-' unary | '+' unary | primary
//   primary:= number | name | '(' expr ')'
// emitting postfix code as it goes, and tracking the stack depth.
class ExprParser {
 public:
  ExprParser(std::string_view s, const Expr::Lookup& lookup, Expr& out) : s_(s), lookup_(lookup), out_(out) {}

  void parse() {
    skip();
    if (pos_ == s_.size()) fail("empty expression");
    expr();
    skip();
    if (pos_ != s_.size()) fail(std::string("unexpected '") + s_[pos_] + "'");
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw WorkloadError(out_.at_ + ": expression \"" + std::string(s_) + "\": " + why + " (at offset " +
                        std::to_string(pos_) + ")");
  }
  void skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n')) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void emit(Expr::Op op, int64_t v, int push) {
    out_.code_.push_back({op, v});
    depth_ += push;
    if (depth_ > Expr::kMaxDepth) fail("nested too deeply");
  }
  void expr() {
    term();
    for (;;) {
      if (eat('+')) {
        term();
        emit(Expr::Op::Add, 0, -1);
      } else if (eat('-')) {
        term();
        emit(Expr::Op::Sub, 0, -1);
      } else
        return;
    }
  }
  void term() {
    unary();
    for (;;) {
      if (eat('*')) {
        unary();
        emit(Expr::Op::Mul, 0, -1);
      } else if (eat('/')) {
        unary();
        emit(Expr::Op::Div, 0, -1);
      } else if (eat('%')) {
        unary();
        emit(Expr::Op::Mod, 0, -1);
      } else
        return;
    }
  }
  void unary() {
    if (++nesting_ > 2 * Expr::kMaxDepth) fail("nested too deeply");
    if (eat('-')) {
      unary();
      emit(Expr::Op::Neg, 0, 0);
    } else if (eat('+')) {
      unary();
    } else {
      primary();
    }
    --nesting_;
  }
  void primary() {
    skip();
    if (pos_ >= s_.size()) fail("expression ends where a value was expected");
    const char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      expr();
      if (!eat(')')) fail("missing ')'");
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      uint64_t v = 0;
      const size_t start = pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        const uint64_t d = static_cast<uint64_t>(s_[pos_] - '0');
        if (v > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - d) / 10) {
          pos_ = start;
          fail("integer literal out of 64-bit range");
        }
        v = v * 10 + d;
        ++pos_;
      }
      emit(Expr::Op::Lit, static_cast<int64_t>(v), 1);
      return;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const size_t start = pos_;
      while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      const std::string_view name = s_.substr(start, pos_ - start);
      const int slot = lookup_(name);
      if (slot < 0) {
        pos_ = start;
        fail("unknown variable '" + std::string(name) + "'");
      }
      out_.constant_ = false;
      emit(Expr::Op::Var, slot, 1);
      return;
    }
    fail(std::string("unexpected '") + c + "'");
  }
  std::string_view s_;
  const Expr::Lookup& lookup_;
  Expr& out_;
  size_t pos_ = 0;
  int depth_ = 0;
  int nesting_ = 0;
};

Expr Expr::compile(std::string_view text, const Lookup& lookup, const std::string& at) {
  Expr e;
  e.text_ = std::string(text);
  e.at_ = at;
  ExprParser(text, lookup, e).parse();
  return e;
}

Expr Expr::literal(int64_t v) {
  Expr e;
  e.text_ = std::to_string(v);
  e.code_.push_back({Op::Lit, v});
  return e;
}

int64_t Expr::eval(const int64_t* env) const {
  int64_t st[kMaxDepth];
  int sp = 0;
  auto bad = [this](const char* why) { throw WorkloadError(at_ + ": expression \"" + text_ + "\": " + why); };
  for (const Code& c : code_) {
    switch (c.op) {
      case Op::Lit: st[sp++] = c.v; break;
      case Op::Var: st[sp++] = env[c.v]; break;
      case Op::Neg:
        if (st[sp - 1] == std::numeric_limits<int64_t>::min()) bad("integer overflow (negation)");
        st[sp - 1] = -st[sp - 1];
        break;
      default: {
        const int64_t b = st[--sp];
        int64_t& a = st[sp - 1];
        int64_t r = 0;
        switch (c.op) {
          case Op::Add:
            if (__builtin_add_overflow(a, b, &r)) bad("integer overflow (+)");
            break;
          case Op::Sub:
            if (__builtin_sub_overflow(a, b, &r)) bad("integer overflow (-)");
            break;
          case Op::Mul:
            if (__builtin_mul_overflow(a, b, &r)) bad("integer overflow (*)");
            break;
          case Op::Div:
          case Op::Mod:
            if (b == 0) bad(c.op == Op::Div ? "division by zero" : "division by zero (%)");
            if (a == std::numeric_limits<int64_t>::min() && b == -1) bad("integer overflow (/)");
            // C++ (like C99) truncates toward zero: -7 / 2 == -3, -7 % 2 == -1.
            r = c.op == Op::Div ? a / b : a % b;
            break;
          default: break;
        }
        a = r;
      }
    }
  }
  return st[0];
}

}  // namespace dalstress
