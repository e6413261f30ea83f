#include "dalshim/query.hpp"

#include "dalshim/database.hpp"
#include "last_error.hpp"

namespace dalshim {
namespace {

Array strings(std::vector<std::string> v) {
  Array a;
  a.reserve(v.size());
  for (auto& s : v) a.emplace_back(std::move(s));
  return a;
}

}  // namespace

const char* Query::method_name(Method m) noexcept {
  static constexpr const char* names[kMethodCount] = {"In",     "Find",       "Fields",   "Join",     "Group",
                                                      "Sort",   "Limit",      "Offset",   "Insert",   "Set",
                                                      "Delete", "OnConflict", "DoUpdate", "DoNothing"};
  return m >= 0 && m < kMethodCount ? names[m] : "?";
}

Query& Query::In(std::string table) {
  args_[kIn] = Array{Value(std::move(table))};
  return *this;
}
Query& Query::In(std::string table, std::string alias) {
  args_[kIn] = Array{Value(std::move(table)), Value(std::move(alias))};
  return *this;
}
Query& Query::Find(Map filter) {
  args_[kFind] = Array{Value(std::move(filter))};
  return *this;
}
Query& Query::Fields(std::vector<std::string> f) {
  args_[kFields] = strings(std::move(f));
  return *this;
}
Query& Query::Join(std::vector<Map> joins) {
  Array a;
  for (auto& j : joins) a.emplace_back(std::move(j));
  args_[kJoin] = std::move(a);
  return *this;
}
Query& Query::Group(std::vector<std::string> k) {
  args_[kGroup] = strings(std::move(k));
  return *this;
}
Query& Query::Sort(Map keys) {
  args_[kSort] = Array{Value(std::move(keys))};
  return *this;
}
Query& Query::Limit(int64_t n) {
  args_[kLimit] = Array{Value(n)};
  return *this;
}
Query& Query::Offset(int64_t n) {
  args_[kOffset] = Array{Value(n)};
  return *this;
}
Query& Query::Insert(Map row) {
  args_[kInsert] = Array{Value(std::move(row))};
  return *this;
}
Query& Query::Insert(std::vector<Map> rows) {
  Array a;
  for (auto& r : rows) a.emplace_back(std::move(r));
  args_[kInsert] = std::move(a);
  return *this;
}
Query& Query::Set(Map cols) {
  args_[kSet] = Array{Value(std::move(cols))};
  return *this;
}
Query& Query::Delete() {
  args_[kDelete] = Array{};
  return *this;
}
Query& Query::OnConflict(std::vector<std::string> c) {
  args_[kOnConflict] = strings(std::move(c));
  return *this;
}
Query& Query::DoUpdate(std::vector<std::string> c) {
  args_[kDoUpdate] = strings(std::move(c));
  return *this;
}
Query& Query::DoNothing() {
  args_[kDoNothing] = Array{};
  return *this;
}

Query& Query::Tx(const std::vector<Query>& statements) {
  for (auto& a : args_) a.reset();
  Array lists;
  lists.reserve(statements.size());
  for (const auto& s : statements) lists.push_back(s.commands());
  tx_ = std::move(lists);
  return *this;
}

Value Query::commands() const {
  Array cmds;
  auto add = [&](const char* m, const Array& args) {
    cmds.push_back(Value(Map{{"method", Value(m)}, {"args", Value(args)}}));
  };
  if (tx_) {
    add("Tx", *tx_);
  } else {
    for (int m = 0; m < kMethodCount; ++m)
      if (args_[m]) add(method_name(static_cast<Method>(m)), *args_[m]);
  }
  return Value(std::move(cmds));
}

Value Query::to_value() const {
  Map m{{"id", Value(static_cast<int64_t>(id_))}, {"db", Value(db_)}, {"commands", commands()}};
  if (codes_) m.emplace_back("codes", Value(true));
  return Value(std::move(m));
}

// Encoded directly (not through to_value()) so the hot path does not build
// a Value tree for the envelope.
Status Query::encode(Encoder& out) const {
  out.map_header(codes_ ? 4 : 3);
  out.str("id");
  out.uint64(id_);
  out.str("db");
  out.str(db_);
  out.str("commands");
  auto cmd = [&](const char* m, const Array& args) {
    out.map_header(2);
    out.str("method");
    out.str(m);
    out.str("args");
    out.array_header(args.size());
    for (const auto& x : args) out.value(x);
  };
  if (tx_) {
    out.array_header(1);
    cmd("Tx", *tx_);
  } else {
    uint32_t n = 0;
    for (const auto& a : args_) n += a.has_value();
    out.array_header(n);
    for (int m = 0; m < kMethodCount; ++m)
      if (args_[m]) cmd(method_name(static_cast<Method>(m)), *args_[m]);
  }
  if (codes_) {
    out.str("codes");
    out.boolean(true);
  }
  if (!out.ok()) return detail::fail(DALSHIM_E_ARG, "a string, binary, array or map exceeds 2^32-1 elements");
  return Ok{};
}

std::vector<uint8_t> Query::bytes() const {
  Encoder e;
  encode(e).value();
  return std::move(e.buffer().vec());
}

Result<Response> Query::run() const {
  if (owner_ == nullptr) return detail::fail(DALSHIM_E_ARG, "query has no Database (build it with db.In(...))");
  return owner_->run(*this);
}
Result<Rows> Query::rows() const {
  if (owner_ == nullptr) return detail::fail(DALSHIM_E_ARG, "query has no Database (build it with db.In(...))");
  return owner_->rows(*this);
}
Result<ExecResult> Query::exec() const {
  if (owner_ == nullptr) return detail::fail(DALSHIM_E_ARG, "query has no Database (build it with db.In(...))");
  return owner_->exec(*this);
}

}  // namespace dalshim
