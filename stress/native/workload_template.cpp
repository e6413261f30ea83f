#include "workload_template.hpp"

#include <msgpack.hpp>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>

namespace dalstress {

namespace {

using json = nlohmann::ordered_json;

using Packer = msgpack::packer<ByteSink>;

bool valid_name(std::string_view n) {
  if (n.empty() || !(std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_')) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

std::string brief(const json& j) {
  std::string s = j.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

}  // namespace

int Scope::add(const std::string& name, const std::string& at) {
  if (!valid_name(name)) throw WorkloadError(at + ": '" + name + "' is not a variable name ([A-Za-z_][A-Za-z0-9_]*)");
  if (find(name) >= 0) throw WorkloadError(at + ": variable '" + name + "' is already defined here");
  // Slots come from the workload-wide counter, so variables of sibling
  // scopes never share one.
  names_.emplace_back(name, (*slots_)++);
  return names_.back().second;
}

int Scope::find(std::string_view name) const {
  for (auto it = names_.rbegin(); it != names_.rend(); ++it)
    if (it->first == name) return it->second;
  return -1;
}

// ---------------------------------------------------------------- nodes

struct Template::Node {
  enum class Kind { Const, Int, Str, Real, Repeat, Map, Array };
  Kind kind = Kind::Const;
  Bytes bytes;  // Const: the encoding; Map: nothing
  Expr e1, e2;  // Int: e1; Real: e1 (over in `over`); Repeat: from, count
  double over = 1;
  int slot = -1;                                                 // Repeat: the variable
  std::vector<std::pair<std::string, Expr>> parts;               // Str: literal text then expression, in turn
  std::string tail;                                              // Str: text after the last expression
  std::vector<std::pair<Bytes, std::unique_ptr<Node>>> entries;  // Map: encoded key, value
  std::vector<std::unique_ptr<Node>> items;                      // Array: items; Repeat: items[0]
  bool constant = true;
  bool array = false;
};

namespace {

using Node = Template::Node;

std::unique_ptr<Node> compile_node(const json& j, const Scope& scope, const std::string& at);
void expand_node(const Node& n, int64_t* env, Bytes& out);

Expr expr_of(const json& j, const Scope& scope, const std::string& at) {
  if (j.is_number_integer()) return Expr::literal(j.get<int64_t>());
  if (j.is_string()) return Expr::compile(j.get<std::string>(), scope.lookup(), at);
  throw WorkloadError(at + ": expected an integer expression (a string or an integer), got " + brief(j));
}

void only_keys(const json& j, std::initializer_list<const char*> allowed, const std::string& at) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool ok = false;
    for (const char* k : allowed) ok = ok || it.key() == k;
    if (!ok) throw WorkloadError(at + ": unknown key '" + it.key() + "' in " + brief(j));
  }
}

std::unique_ptr<Node> compile_str(const std::string& text, const Scope& scope, const std::string& at) {
  auto n = std::make_unique<Node>();
  n->kind = Node::Kind::Str;
  std::string lit;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '}') throw WorkloadError(at + ": '}' without '{' in \"" + text + "\"");
    if (c != '{') {
      lit += c;
      continue;
    }
    const size_t end = text.find('}', i + 1);
    if (end == std::string::npos) throw WorkloadError(at + ": '{' without '}' in \"" + text + "\"");
    Expr e = Expr::compile(std::string_view(text).substr(i + 1, end - i - 1), scope.lookup(), at);
    n->constant = n->constant && e.constant();
    n->parts.emplace_back(std::move(lit), std::move(e));
    lit.clear();
    i = end;
  }
  n->tail = std::move(lit);
  return n;
}

std::unique_ptr<Node> compile_template_object(const json& j, const Scope& scope, const std::string& at) {
  const std::string& k = j.begin().key();
  const json& v = j.begin().value();
  if (k == "$") {
    only_keys(j, {"$"}, at);
    auto n = std::make_unique<Node>();
    n->kind = Node::Kind::Int;
    n->e1 = expr_of(v, scope, at + ".$");
    n->constant = n->e1.constant();
    return n;
  }
  if (k == "$str") {
    only_keys(j, {"$str"}, at);
    if (!v.is_string()) throw WorkloadError(at + ".$str: expected a string, got " + brief(v));
    return compile_str(v.get<std::string>(), scope, at + ".$str");
  }
  if (k == "$real") {
    only_keys(j, {"$real", "over"}, at);
    auto n = std::make_unique<Node>();
    n->kind = Node::Kind::Real;
    n->e1 = expr_of(v, scope, at + ".$real");
    if (j.contains("over")) {
      const json& o = j["over"];
      if (!o.is_number_integer() || o.get<int64_t>() == 0)
        throw WorkloadError(at + ".over: expected a non-zero integer, got " + brief(o));
      n->over = static_cast<double>(o.get<int64_t>());
    }
    n->constant = n->e1.constant();
    return n;
  }
  // "$repeat"
  only_keys(j, {"$repeat"}, at);
  const std::string rat = at + ".$repeat";
  if (!v.is_object()) throw WorkloadError(rat + ": expected an object, got " + brief(v));
  only_keys(v, {"var", "from", "count", "item"}, rat);
  for (const char* need : {"var", "count", "item"})
    if (!v.contains(need)) throw WorkloadError(rat + ": missing key '" + need + "'");
  if (!v["var"].is_string()) throw WorkloadError(rat + ".var: expected a string, got " + brief(v["var"]));
  auto n = std::make_unique<Node>();
  n->kind = Node::Kind::Repeat;
  n->array = true;
  n->e1 = v.contains("from") ? expr_of(v["from"], scope, rat + ".from") : Expr::literal(0);
  n->e2 = expr_of(v["count"], scope, rat + ".count");
  Scope inner = scope;
  n->slot = inner.add(v["var"].get<std::string>(), rat + ".var");
  n->items.push_back(compile_node(v["item"], inner, rat + ".item"));
  n->constant = false;  // the item may use the variable; expanded every time
  return n;
}

std::unique_ptr<Node> compile_node(const json& j, const Scope& scope, const std::string& at) {
  if (j.is_object() && !j.empty()) {
    const std::string& k = j.begin().key();
    if (k == "$" || k == "$str" || k == "$real" || k == "$repeat") return compile_template_object(j, scope, at);
  }
  auto n = std::make_unique<Node>();
  if (j.is_object()) {
    n->kind = Node::Kind::Map;
    for (auto it = j.begin(); it != j.end(); ++it) {
      Bytes key;
      encode_json(json(it.key()), key);
      auto child = compile_node(it.value(), scope, at + "." + it.key());
      n->constant = n->constant && child->constant;
      n->entries.emplace_back(std::move(key), std::move(child));
    }
  } else if (j.is_array()) {
    n->kind = Node::Kind::Array;
    n->array = true;
    size_t i = 0;
    for (const json& item : j) {
      auto child = compile_node(item, scope, at + "[" + std::to_string(i++) + "]");
      n->constant = n->constant && child->constant;
      n->items.push_back(std::move(child));
    }
  } else {
    encode_json(j, n->bytes);
    return n;
  }
  if (n->constant) {
    // Nothing below depends on a variable: expand once into bytes (constant
    // templates such as {"$real": "8", "over": 4} included).
    auto folded = std::make_unique<Node>();
    folded->array = n->array;
    expand_node(*n, nullptr, folded->bytes);
    return folded;
  }
  return n;
}

// Always float64 (cb + 8 bytes, big-endian).  msgpack-c's pack_double
// writes an integral double (5.0) as an integer, which is another value for
// this protocol (docs/workloads.md: never an integer where a float is
// expected).
void append_float64(Bytes& out, double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  out.push_back(0xcb);
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(bits >> shift));
}

void append_str(Bytes& out, std::string_view s) {
  ByteSink sink{&out};
  Packer pk(sink);
  pk.pack_str(static_cast<uint32_t>(s.size()));
  pk.pack_str_body(s.data(), static_cast<uint32_t>(s.size()));
}

void expand_node(const Node& n, int64_t* env, Bytes& out) {
  switch (n.kind) {
    case Node::Kind::Const: out.insert(out.end(), n.bytes.begin(), n.bytes.end()); return;
    case Node::Kind::Int: {
      ByteSink sink{&out};
      Packer pk(sink);
      pk.pack_int64(n.e1.eval(env));
      return;
    }
    case Node::Kind::Real: append_float64(out, static_cast<double>(n.e1.eval(env)) / n.over); return;
    case Node::Kind::Str: {
      // Built in a per-thread string that keeps its capacity: expanding a
      // query allocates nothing once the buffers have grown.
      thread_local std::string s;
      s.clear();
      char num[24];
      for (const auto& [lit, e] : n.parts) {
        s += lit;
        const auto r = std::to_chars(num, num + sizeof num, e.eval(env));
        s.append(num, r.ptr);
      }
      s += n.tail;
      append_str(out, s);
      return;
    }
    case Node::Kind::Repeat: {
      const int64_t from = n.e1.eval(env);
      const int64_t count = n.e2.eval(env);
      if (count < 0 || count > UINT32_MAX)
        throw WorkloadError("$repeat: count \"" + n.e2.text() + "\" is " + std::to_string(count) + " (0..2^32-1)");
      ByteSink sink{&out};
      Packer pk(sink);
      pk.pack_array(static_cast<uint32_t>(count));
      for (int64_t i = 0; i < count; ++i) {
        if (__builtin_add_overflow(from, i, &env[n.slot]))
          throw WorkloadError("$repeat: variable overflows from \"" + n.e1.text() + "\"");
        expand_node(*n.items[0], env, out);
      }
      return;
    }
    case Node::Kind::Map: {
      ByteSink sink{&out};
      Packer pk(sink);
      pk.pack_map(static_cast<uint32_t>(n.entries.size()));
      for (const auto& [key, child] : n.entries) {
        out.insert(out.end(), key.begin(), key.end());
        expand_node(*child, env, out);
      }
      return;
    }
    case Node::Kind::Array: {
      ByteSink sink{&out};
      Packer pk(sink);
      pk.pack_array(static_cast<uint32_t>(n.items.size()));
      for (const auto& child : n.items) expand_node(*child, env, out);
      return;
    }
  }
}

}  // namespace

void encode_json(const json& j, Bytes& out) {
  ByteSink sink{&out};
  Packer pk(sink);
  switch (j.type()) {
    case json::value_t::null: pk.pack_nil(); break;
    case json::value_t::boolean: j.get<bool>() ? pk.pack_true() : pk.pack_false(); break;
    case json::value_t::number_integer: pk.pack_int64(j.get<int64_t>()); break;
    case json::value_t::number_unsigned: pk.pack_uint64(j.get<uint64_t>()); break;
    case json::value_t::number_float: append_float64(out, j.get<double>()); break;
    case json::value_t::string: append_str(out, j.get_ref<const std::string&>()); break;
    case json::value_t::array:
      pk.pack_array(static_cast<uint32_t>(j.size()));
      for (const json& v : j) encode_json(v, out);
      break;
    case json::value_t::object:
      pk.pack_map(static_cast<uint32_t>(j.size()));
      for (auto it = j.begin(); it != j.end(); ++it) {
        append_str(out, it.key());
        encode_json(it.value(), out);
      }
      break;
    case json::value_t::binary:
    case json::value_t::discarded: throw WorkloadError("unsupported JSON value " + brief(j));
  }
}

Template::Template() = default;
Template::Template(Template&&) noexcept = default;
Template& Template::operator=(Template&&) noexcept = default;
Template::~Template() = default;
Template::Template(std::unique_ptr<Node> root) : root_(std::move(root)) {}

Template Template::compile(const json& j, const Scope& scope, const std::string& at) {
  return Template(compile_node(j, scope, at));
}

void Template::expand(int64_t* env, Bytes& out) const { expand_node(*root_, env, out); }
bool Template::constant() const noexcept { return root_->constant; }
bool Template::is_array() const noexcept { return root_->array; }

}  // namespace dalstress
