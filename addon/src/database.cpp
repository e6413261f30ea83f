#include "database.hpp"

#include <cstring>
#include <string>

#include "addon.hpp"
#include "async_query.hpp"
#include "external_memory.hpp"
#include "uint8_bytes.hpp"

namespace dalkit {
namespace {

// The bytes of a Uint8Array / Buffer argument; a TypeError naming the call
// for anything else.
std::span<uint8_t> bytes_arg(const Napi::Value& v, const char* what) {
  auto bytes = uint8_bytes(v.Env(), v);
  if (!bytes) throw Napi::TypeError::New(v.Env(), std::string(what) + ": expected a Uint8Array or Buffer");
  // A zero-length array may have no backing store (data is null), and the
  // shim reads a null request as "req is NULL" (DAL_E_NULL).  An empty
  // request is still a request: the DAL must answer it with its own decode
  // error, so it gets a valid pointer to nothing.
  static uint8_t no_bytes[1];
  return {bytes->data() != nullptr ? bytes->data() : no_bytes, bytes->size()};
}

}  // namespace

Napi::Function Database::Init(Napi::Env env, Addon& addon) {
  Napi::Function ctor = DefineClass(
      env, "Database",
      {InstanceMethod<&Database::Close>("close"), InstanceAccessor<&Database::IsOpen>("isOpen"),
       InstanceMethod<&Database::QueryRaw>("queryRaw"), InstanceMethod<&Database::QueryRawAsync>("queryRawAsync"),
       InstanceMethod<&Database::QueryInto>("queryInto"), InstanceMethod<&Database::QueryIntoAsync>("queryIntoAsync"),
       InstanceMethod<&Database::TakePending>("takePending"), InstanceMethod<&Database::Exec>("exec"),
       InstanceMethod<&Database::Counters>("counters")});
  addon.database_ctor = Napi::Persistent(ctor);
  return ctor;
}

// new Database(dir, options): options is dal.h's option string ("" = defaults).
Database::Database(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Database>(info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString()) throw Napi::TypeError::New(env, "Database(dir, options): dir must be a string");
  if (!info[1].IsString() && !info[1].IsUndefined())
    throw Napi::TypeError::New(env, "Database(dir, options): options must be a string");
  std::string dir = c_string(info[0], "Database(dir, options): dir");
  std::string options = info[1].IsString() ? c_string(info[1], "Database(dir, options): options") : std::string();
  auto db = dalshim::Database::open(dir, options);
  if (!db) Addon::of(env).throw_dal_error(db.error());
  db_ = std::move(*db);
}

Database::~Database() {
  // Finalizer: the object was collected without close().  No async query
  // can be in flight (each one holds a reference to this object).
  (void)db_.close();
  if (!pending_.empty()) adjust_external(Env(), -static_cast<int64_t>(pending_.capacity()));
}

void Database::check_open(Napi::Env env) const {
  if (closed_) Addon::of(env).throw_dal_error(DALSHIM_E_CLOSED, "database is closed");
}

Napi::Value Database::Close(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (closed_) return env.Undefined();  // second close(): nothing to do
  closed_ = true;
  if (in_flight_ == 0) close_handle(env);
  return env.Undefined();
}

void Database::close_handle(Napi::Env env) {
  if (!pending_.empty()) {
    adjust_external(env, -static_cast<int64_t>(pending_.capacity()));
    std::vector<uint8_t>().swap(pending_);
  }
  auto st = db_.close();
  if (!st) Addon::of(env).throw_dal_error(st.error());
}

void Database::async_finished(Napi::Env env) {
  if (--in_flight_ == 0 && closed_ && db_.is_open()) {
    auto st = db_.close();  // deferred close(); a failure has no caller left to tell
    (void)st;
    if (!pending_.empty()) {
      adjust_external(env, -static_cast<int64_t>(pending_.capacity()));
      std::vector<uint8_t>().swap(pending_);
    }
  }
}

Napi::Value Database::IsOpen(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), !closed_); }

std::span<const uint8_t> Database::run(Napi::Env env, std::span<const uint8_t> req, dalshim::Bytes& out) {
  auto n = db_.query_to(req, out);
  if (!n) Addon::of(env).throw_dal_error(n.error());
  count(req.size(), *n);
  return {out.data(), *n};
}

// exec(db, sql): administrative SQL text on database db (dalshim_exec:
// schemas and migrations, never user input).  Not a query: not counted.
Napi::Value Database::Exec(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsString()) throw Napi::TypeError::New(env, "exec(db, sql): db must be a string");
  if (!info[1].IsString()) throw Napi::TypeError::New(env, "exec(db, sql): sql must be a string");
  check_open(env);
  // Lengths travel with the text: a NUL inside either reaches the DAL,
  // which refuses it (DAL_E_REQUEST) instead of running a truncated text.
  const std::string db = info[0].As<Napi::String>().Utf8Value();
  const std::string sql = info[1].As<Napi::String>().Utf8Value();
  auto st = db_.exec_sql(db, sql);
  if (!st) Addon::of(env).throw_dal_error(st.error());
  return env.Undefined();
}

// queryRaw(bytes) -> Buffer: the response bytes, copied into JS-owned memory.
Napi::Value Database::QueryRaw(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  check_open(env);
  auto req = bytes_arg(info[0], "queryRaw(bytes)");
  Addon::Lease lease(Addon::of(env));
  auto resp = run(env, req, lease.response());
  return Napi::Buffer<uint8_t>::Copy(env, resp.data(), resp.size());
}

Napi::Value Database::QueryRawAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  check_open(env);
  auto req = bytes_arg(info[0], "queryRawAsync(bytes)");
  return AsyncQuery::Raw(env, this, std::vector<uint8_t>(req.begin(), req.end()));
}

// queryInto(bytes, target) -> n.  n <= target.length: the response is in
// target[0, n).  n > target.length: nothing was written; the request WAS
// executed and its response is kept by this Database until
// takePending(target) with a large enough target (never resend: a write
// would run twice).
Napi::Value Database::QueryInto(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  check_open(env);
  auto req = bytes_arg(info[0], "queryInto(bytes, target)");
  auto target = bytes_arg(info[1], "queryInto(bytes, target)");
  auto n = db_.query_into(req, target);
  if (!n) Addon::of(env).throw_dal_error(n.error());
  const size_t len = static_cast<size_t>(*n);
  if (len > target.size()) {
    std::vector<uint8_t> held(len);
    auto m = db_.take_pending(held);
    if (!m) Addon::of(env).throw_dal_error(m.error());
    hold_pending(env, std::move(held));
  }
  count(req.size(), len);
  return Napi::Number::New(env, static_cast<double>(len));
}

Napi::Value Database::QueryIntoAsync(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  check_open(env);
  auto req = bytes_arg(info[0], "queryIntoAsync(bytes, target)");
  (void)bytes_arg(info[1], "queryIntoAsync(bytes, target)");
  return AsyncQuery::Into(env, this, std::vector<uint8_t>(req.begin(), req.end()), info[1].As<Napi::Object>());
}

void Database::hold_pending(Napi::Env env, std::vector<uint8_t> bytes) {
  // A queryIntoAsync that settles after close(): takePending() can no longer
  // be called, and close() / async_finished() have already released pending_,
  // so holding it now would keep it until the object is collected.
  if (closed_) return;
  // A newer response replaces an older one not taken, as in the shim.
  const int64_t before = static_cast<int64_t>(pending_.capacity());
  pending_ = std::move(bytes);
  adjust_external(env, static_cast<int64_t>(pending_.capacity()) - before);
}

// takePending(target) -> n: copy the held response into target if it fits
// (and release it); otherwise return n and keep it.
Napi::Value Database::TakePending(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  check_open(env);
  auto target = bytes_arg(info[0], "takePending(target)");
  if (pending_.empty())
    Addon::of(env).throw_dal_error(
        DALSHIM_E_MISUSE, "no pending response: takePending() follows a queryInto() whose target was too small");
  const size_t n = pending_.size();
  if (n <= target.size()) {
    std::memcpy(target.data(), pending_.data(), n);
    adjust_external(env, -static_cast<int64_t>(pending_.capacity()));
    std::vector<uint8_t>().swap(pending_);
  }
  return Napi::Number::New(env, static_cast<double>(n));
}

// counters() -> {queries, requestBytes, responseBytes} of this Database.
Napi::Value Database::Counters(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
  o.Set("queries", Napi::Number::New(env, static_cast<double>(queries_)));
  o.Set("requestBytes", Napi::Number::New(env, static_cast<double>(request_bytes_)));
  o.Set("responseBytes", Napi::Number::New(env, static_cast<double>(response_bytes_)));
  return o;
}

}  // namespace dalkit
