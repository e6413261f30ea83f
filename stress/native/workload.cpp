#include "workload.hpp"

#include <limits.h>
#include <unistd.h>

#include <msgpack.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "workload_backend.hpp"

namespace dalstress {

namespace {

using json = nlohmann::ordered_json;

std::string brief(const json& j) {
  std::string s = j.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

// An object with only `allowed` keys and every one of `required`.
const json& object(const json& j, const std::string& at, std::initializer_list<const char*> allowed,
                   std::initializer_list<const char*> required) {
  if (!j.is_object()) throw WorkloadError((at.empty() ? "the file" : at) + ": expected an object, got " + brief(j));
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool ok = false;
    for (const char* k : allowed) ok = ok || it.key() == k;
    if (!ok) throw WorkloadError((at.empty() ? "" : at + ".") + it.key() + ": unknown key");
  }
  for (const char* k : required)
    if (!j.contains(k)) throw WorkloadError((at.empty() ? "" : at + ".") + k + ": missing");
  return j;
}

const std::string& string(const json& j, const std::string& at) {
  if (!j.is_string()) throw WorkloadError(at + ": expected a string, got " + brief(j));
  return j.get_ref<const std::string&>();
}

const json& array(const json& j, const std::string& at) {
  if (!j.is_array()) throw WorkloadError(at + ": expected an array, got " + brief(j));
  return j;
}

// `let` objects: each name gets a slot, in file order, and may use the ones before it.
std::vector<WorkloadLet> lets(const json& j, Scope& scope, const std::string& at) {
  std::vector<WorkloadLet> out;
  if (!j.is_object()) throw WorkloadError(at + ": expected an object of name: expression, got " + brief(j));
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string where = at + "." + it.key();
    Expr e = it.value().is_number_integer() ? Expr::literal(it.value().get<int64_t>())
                                            : Expr::compile(string(it.value(), where), scope.lookup(), where);
    out.push_back({scope.add(it.key(), where), std::move(e)});
  }
  return out;
}

Template commands(const json& j, const Scope& scope, const std::string& at) {
  Template t = Template::compile(j, scope, at);
  if (!t.is_array()) throw WorkloadError(at + ": expected an array of commands, got " + brief(j));
  return t;
}

std::string exe_dir() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return {};
  std::string p(buf, static_cast<size_t>(n));
  const auto slash = p.rfind('/');
  return slash == std::string::npos ? std::string() : p.substr(0, slash);
}

bool readable(const std::string& p) { return access(p.c_str(), R_OK) == 0; }

}  // namespace

std::vector<std::string> Workload::directories() { return {exe_dir() + "/workloads", "stress/workloads"}; }

// The names are the files, not a list in the code: a NAME.json dropped into
// either directory is --workload NAME, with no other change (docs/extending.md).
std::vector<std::string> Workload::names() {
  std::set<std::string> found;  // sorted and unique, as the JS drivers list them
  for (const auto& dir : directories()) {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::filesystem::path& p = it->path();
      if (p.extension() == ".json" && it->is_regular_file(ec)) found.insert(p.stem().string());
    }
  }
  return {found.begin(), found.end()};
}

std::string Workload::locate(const std::string& w) {
  if (w.find('/') != std::string::npos || (w.size() > 5 && w.compare(w.size() - 5, 5, ".json") == 0)) return w;
  const std::vector<std::string> dirs = directories();
  for (const auto& dir : dirs) {
    const std::string file = dir + "/" + w + ".json";
    if (readable(file)) return file;
  }
  std::string list;
  for (const auto& n : names()) list += (list.empty() ? "" : ", ") + n;
  if (list.empty())
    throw WorkloadError("unknown workload '" + w + "': no workload files in " + dirs[0] + " nor " + dirs[1] +
                        " (build dalstress, or run from the repository root, or pass --workload FILE)");
  throw WorkloadError("unknown workload '" + w + "' (expected " + list + ", or a .json file path)");
}

Workload Workload::load(const std::string& path, const WorkloadTarget& target) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw WorkloadError("cannot read workload file " + path);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw WorkloadError("cannot read workload file " + path);
  return parse(text.str(), path, target);
}

Workload Workload::parse(const std::string& text, const std::string& path, const WorkloadTarget& target) {
  try {
    json w;
    try {
      w = json::parse(text);
    } catch (const json::parse_error& e) {
      throw WorkloadError(std::string("not valid JSON: ") + e.what());
    }
    w = for_backend(w, target.backend);
    Workload wl;
    wl.path_ = path;
    object(w, "", {"format", "name", "summary", "db", "schema", "seed", "let", "steps"},
           {"format", "name", "db", "steps"});
    if (!w["format"].is_number_integer() || w["format"].get<int64_t>() != 1)
      throw WorkloadError("format: " + brief(w["format"]) + " (this dalstress reads format 1)");
    wl.name_ = string(w["name"], "name");
    // The name travels in the monitor's parameters, where ';' ',' and '='
    // are separators: a plain word only.
    if (wl.name_.empty() ||
        wl.name_.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") !=
            std::string::npos)
      throw WorkloadError("name: \"" + wl.name_ + "\" (letters, digits, '_', '-' and '.' only)");
    wl.db_ = string(w["db"], "db");
    if (wl.db_.empty()) throw WorkloadError("db: empty");
    if (!target.db.empty()) wl.db_ = target.db;
    if (w.contains("summary")) wl.summary_ = string(w["summary"], "summary");
    if (w.contains("schema")) wl.schema_ = string(w["schema"], "schema");

    wl.slots_ = kSlotId + 1;
    // Seed: t, n, id and the repeat variable (no cycle: the seed is one pass).
    if (w.contains("seed")) {
      size_t i = 0;
      for (const json& s : array(w["seed"], "seed")) {
        const std::string at = "seed[" + std::to_string(i++) + "]";
        object(s, at, {"repeat", "commands", "expect"}, {"repeat", "commands", "expect"});
        const json& r = object(s["repeat"], at + ".repeat", {"var", "count"}, {"var", "count"});
        if (!r["count"].is_number_integer() || r["count"].get<int64_t>() < 0)
          throw WorkloadError(at + ".repeat.count: " + brief(r["count"]) + " (an integer >= 0)");
        Scope vars(&wl.slots_);
        vars.bind("t", kSlotT);
        vars.bind("n", kSlotN);
        vars.bind("id", kSlotId);
        WorkloadSeed e{};
        e.var_slot = vars.add(string(r["var"], at + ".repeat.var"), at + ".repeat.var");
        e.count = r["count"].get<int64_t>();
        e.commands = commands(s["commands"], vars, at + ".commands");
        e.expect = Template::compile(s["expect"], vars, at + ".expect");
        wl.seed_.push_back(std::move(e));
      }
    }

    // Steps: t, n, c, id, the workload's lets, then the step's.
    Scope shared(&wl.slots_);
    shared.bind("t", kSlotT);
    shared.bind("n", kSlotN);
    shared.bind("c", kSlotC);
    shared.bind("id", kSlotId);
    std::vector<WorkloadLet> shared_lets;
    if (w.contains("let")) shared_lets = lets(w["let"], shared, "let");
    size_t i = 0;
    for (const json& s : array(w["steps"], "steps")) {
      const std::string at = "steps[" + std::to_string(i++) + "]";
      object(s, at, {"id", "let", "commands", "expect"}, {"commands", "expect"});
      WorkloadStep step;
      if (s.contains("id")) {
        if (!s["id"].is_number_integer() || s["id"].get<int64_t>() < 0)
          throw WorkloadError(at + ".id: " + brief(s["id"]) + " (an integer >= 0)");
        step.id = s["id"].get<uint64_t>();
      }
      Scope own = shared;
      step.lets = shared_lets;
      if (s.contains("let")) {
        auto mine = lets(s["let"], own, at + ".let");
        for (auto& l : mine) step.lets.push_back(std::move(l));
      }
      step.commands = commands(s["commands"], own, at + ".commands");
      step.expect = Template::compile(s["expect"], own, at + ".expect");
      wl.steps_.push_back(std::move(step));
    }
    if (wl.steps_.empty()) throw WorkloadError("steps: empty (a workload sends at least one request)");

    {
      ByteSink sink{&wl.db_field_};
      msgpack::packer<ByteSink> pk(sink);
      pk.pack_str(2);
      pk.pack_str_body("db", 2);
      pk.pack_str(static_cast<uint32_t>(wl.db_.size()));
      pk.pack_str_body(wl.db_.data(), static_cast<uint32_t>(wl.db_.size()));
      pk.pack_str(8);
      pk.pack_str_body("commands", 8);
    }

    // Trial expansion (see the top of workload.hpp).
    std::vector<int64_t> env(static_cast<size_t>(wl.slots_));
    ExpandedQuery q;
    int64_t k = 0;
    for (const auto& s : wl.seed_) {
      if (s.count > 0) wl.expand_seed(k, env.data(), q);
      k += s.count;
    }
    for (size_t n = 0; n < wl.steps_.size(); ++n) wl.expand(0, static_cast<int64_t>(n), env.data(), q);
    return wl;
  } catch (const WorkloadError& e) {
    throw WorkloadError("workload " + path + ": " + e.what());
  } catch (const json::exception& e) {
    // A value of a type the checks above did not expect: still a bad file.
    throw WorkloadError("workload " + path + ": " + e.what());
  }
}

bool Workload::constant() const {
  if (steps_.size() != 1) return false;
  const WorkloadStep& s = steps_[0];
  return s.id.has_value() && s.lets.empty() && s.commands.constant() && s.expect.constant();
}

int64_t Workload::seed_queries() const {
  int64_t k = 0;
  for (const auto& s : seed_) k += s.count;
  return k;
}

// A fixmap header, the key "id" (3 bytes) and a uint64 (at most 9 bytes).
constexpr size_t kIdFieldMaxBytes = 1 + 3 + 9;

void Workload::request_into(uint64_t id, const Template& cmds, int64_t* env, Bytes& out) const {
  out.clear();
  // Room for the map header, "id" and its value up front: the appends below
  // then never reallocate (and GCC 12 at -O3 no longer reports a bogus
  // out-of-bounds memmove on the reallocation path it imagines).
  out.reserve(kIdFieldMaxBytes + db_field_.size());
  ByteSink sink{&out};
  msgpack::packer<ByteSink> pk(sink);
  pk.pack_map(3);
  pk.pack_str(2);
  pk.pack_str_body("id", 2);
  pk.pack_uint64(id);
  sink.write(reinterpret_cast<const char*>(db_field_.data()), db_field_.size());
  cmds.expand(env, out);
}

void Workload::expand(int t, int64_t n, int64_t* env, ExpandedQuery& q) const {
  const int64_t len = static_cast<int64_t>(steps_.size());
  const WorkloadStep& s = steps_[static_cast<size_t>(n % len)];
  const uint64_t id = s.id ? *s.id : (static_cast<uint64_t>(t) + 1) * (uint64_t{1} << 32) + static_cast<uint64_t>(n);
  env[kSlotT] = t;
  env[kSlotN] = n;
  env[kSlotC] = n / len;
  env[kSlotId] = static_cast<int64_t>(id);
  for (const auto& l : s.lets) env[l.slot] = l.expr.eval(env);
  q.id = id;
  request_into(id, s.commands, env, q.request);
  q.expect.clear();
  s.expect.expand(env, q.expect);
}

void Workload::expand_seed(int64_t k, int64_t* env, ExpandedQuery& q) const {
  // Seed request k is thread 0's query k: same id rule, before the steps.
  const int64_t n = k;
  for (const auto& s : seed_) {
    if (k < s.count) {
      const uint64_t id = (uint64_t{1} << 32) + static_cast<uint64_t>(n);
      env[kSlotT] = 0;
      env[kSlotN] = n;
      env[kSlotC] = 0;
      env[kSlotId] = static_cast<int64_t>(id);
      env[s.var_slot] = k;
      q.id = id;
      request_into(id, s.commands, env, q.request);
      q.expect.clear();
      s.expect.expand(env, q.expect);
      return;
    }
    k -= s.count;
  }
  throw WorkloadError("seed request " + std::to_string(n) + " does not exist");
}

}  // namespace dalstress
