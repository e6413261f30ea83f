// addon.cpp -- module entry of dalkit.node and the per-environment Addon.
//
// Exports (lib/database.js is the only intended caller):
//   init(DalError)          register lib/errors.js's class for this environment
//   Database                the class of database.hpp
//   load(path?)             load the DAL now ($DAL_LIBRARY / beside dalkit.node by default)
//   libraryPath(), dalVersion(), codeName(n)
//   encodeRequest(id, db, methods, args) -> Buffer   a query's request bytes from the shim's
//                                                    C++ encoder (msgpack-c): the reference
//                                                    lib/codec.js is tested equal to
//   codes                   {DALSHIM_E_SQL, DALSHIM_E_RESPONSE}: the errnos lib/codec.js names
//   stats(forceGc) -> number[]                       dalshim_stats(), in dalshim.h order
//   monitor                 the dalmon_* C ABI (monitor.hpp)
#include "addon.hpp"

#include <dalshim.h>

#include "database.hpp"
#include "external_memory.hpp"
#include "js_encoder.hpp"
#include "monitor.hpp"

// LeakSanitizer's on-demand check, present only when the ASan runtime is in
// the process (the sanitizer pass preloads it into node).
extern "C" int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

namespace dalkit {
namespace {

// 64 KiB: every response of the reference workload and of ordinary row sets
// fits in one call; a larger one grows the scratch (query_to takes it
// pending), and trim_scratch() gives anything beyond 1 MiB back.
constexpr size_t kResponseScratch = 64 * 1024;

Napi::Value Init(const Napi::CallbackInfo& info) {
  Addon& a = Addon::of(info.Env());
  if (!info[0].IsFunction()) throw Napi::TypeError::New(info.Env(), "init(DalError): expected the DalError class");
  a.dal_error_ctor = Napi::Persistent(info[0].As<Napi::Function>());
  return info.Env().Undefined();
}

Napi::Value Load(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string path;
  if (info.Length() > 0 && !info[0].IsUndefined() && !info[0].IsNull()) {
    if (!info[0].IsString()) throw Napi::TypeError::New(env, "load(path): path must be a string");
    path = c_string(info[0], "load(path): path");
  }
  auto lib = dalshim::Library::load_default(path);
  if (!lib) Addon::of(env).throw_dal_error(lib.error());
  Napi::Object o = Napi::Object::New(env);
  o.Set("path", (*lib)->path());
  o.Set("version", Napi::Number::New(env, (*lib)->version()));
  o.Set("versionString", std::string((*lib)->version_string()));
  return o;
}

Napi::Value LibraryPath(const Napi::CallbackInfo& info) {
  return Napi::String::New(info.Env(), dalshim_library_path());
}

Napi::Value DalVersion(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), dalshim_dal_version()); }

Napi::Value CodeName(const Napi::CallbackInfo& info) {
  if (!info[0].IsNumber()) throw Napi::TypeError::New(info.Env(), "codeName(n): n must be a number");
  return Napi::String::New(info.Env(), dalshim_code_name(info[0].As<Napi::Number>().Int32Value()));
}

Napi::Value EncodeRequest(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 4) throw Napi::TypeError::New(env, "encodeRequest(id, db, methods, args)");
  const uint64_t id = request_id_arg(info[0]);
  Addon& a = Addon::of(env);
  dalshim::Encoder enc;  // not the scratch: the caller keeps the bytes
  a.encoder_for(enc).request(id, info[1], info[2], info[3]);
  auto bytes = enc.span();
  return Napi::Buffer<uint8_t>::Copy(env, bytes.data(), bytes.size());
}

// Native bytes the addon holds for JS on this thread (external_memory.hpp).
Napi::Value ExternalBytes(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(external_bytes()));
}

// leakCheck() -> 0 no leaks, 1 leaks (LeakSanitizer printed them), -1 no
// LeakSanitizer in this process.  Run while node is alive, so only memory
// nothing points to any more counts -- unlike the check at exit, which also
// reports everything node deliberately never frees (tests/node/CMakeLists.txt).
Napi::Value LeakCheck(const Napi::CallbackInfo& info) {
  const int r = __lsan_do_recoverable_leak_check != nullptr ? (__lsan_do_recoverable_leak_check() != 0 ? 1 : 0) : -1;
  return Napi::Number::New(info.Env(), r);
}

Napi::Value Stats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const bool force_gc = info.Length() > 0 && info[0].ToBoolean();
  int64_t v[DALSHIM_STAT_TOTAL];
  int32_t n = dalshim_stats(force_gc ? DALSHIM_STATS_FORCE_GC : 0, v, DALSHIM_STAT_TOTAL);
  if (n < 0) Addon::of(env).throw_dal_error(n, dalshim_last_error());
  Napi::Array out = Napi::Array::New(env, static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) out.Set(static_cast<uint32_t>(i), Napi::Number::New(env, static_cast<double>(v[i])));
  return out;
}

}  // namespace

Napi::Object InitModule(Napi::Env env, Napi::Object exports) {
  auto* addon = new Addon(env);
  env.SetInstanceData(addon);  // deleted by node-addon-api when this environment ends
  exports.Set("init", Napi::Function::New(env, Init, "init"));
  exports.Set("Database", Database::Init(env, *addon));
  exports.Set("load", Napi::Function::New(env, Load, "load"));
  exports.Set("libraryPath", Napi::Function::New(env, LibraryPath, "libraryPath"));
  exports.Set("dalVersion", Napi::Function::New(env, DalVersion, "dalVersion"));
  exports.Set("codeName", Napi::Function::New(env, CodeName, "codeName"));
  exports.Set("encodeRequest", Napi::Function::New(env, EncodeRequest, "encodeRequest"));
  exports.Set("stats", Napi::Function::New(env, Stats, "stats"));
  exports.Set("externalBytes", Napi::Function::New(env, ExternalBytes, "externalBytes"));
  exports.Set("leakCheck", Napi::Function::New(env, LeakCheck, "leakCheck"));
  exports.Set("monitor", monitor_exports(env));
  exports.Set("napiVersion", Napi::Number::New(env, NAPI_VERSION));
  exports.Set("maxDepth", Napi::Number::New(env, kMaxDepth));
  // The errno of each error lib/codec.js names when it decodes a response
  // (dalshim.h's numbers, so JS holds no table of its own).
  Napi::Object codes = Napi::Object::New(env);
  codes.Set("DALSHIM_E_SQL", Napi::Number::New(env, DALSHIM_E_SQL));
  codes.Set("DALSHIM_E_RESPONSE", Napi::Number::New(env, DALSHIM_E_RESPONSE));
  exports.Set("codes", codes);
  return exports;
}

uint64_t request_id_arg(const Napi::Value& v) {
  if (v.IsNumber()) {
    double d = v.As<Napi::Number>().DoubleValue();
    if (d >= 0 && d <= 9007199254740991.0 && d == static_cast<double>(static_cast<uint64_t>(d)))
      return static_cast<uint64_t>(d);
  } else if (v.IsBigInt()) {
    bool lossless = false;
    uint64_t u = v.As<Napi::BigInt>().Uint64Value(&lossless);
    if (lossless && u <= static_cast<uint64_t>(INT64_MAX)) return u;
  }
  throw Napi::TypeError::New(v.Env(), "id: expected an integer 0 .. 2^63-1");
}

Addon::Addon(Napi::Env env) : env_(env), response_(kResponseScratch) {
  Napi::Object global = env.Global();
  Napi::Object object_ctor = global.Get("Object").As<Napi::Object>();
  object_prototype = Napi::Persistent(object_ctor.Get("prototype").As<Napi::Object>());
  object_keys = Napi::Persistent(object_ctor.Get("keys").As<Napi::Function>());
  object_get_prototype_of = Napi::Persistent(object_ctor.Get("getPrototypeOf").As<Napi::Function>());
  array_is_array = Napi::Persistent(global.Get("Array").As<Napi::Object>().Get("isArray").As<Napi::Function>());
  account_scratch();
}

Addon::~Addon() {
  // The environment is ending: V8 no longer needs to hear about the scratch
  // (and may be going away), only the thread's tally does.
  forget_external(reported_bytes_);
}

JsEncoder Addon::encoder_for(dalshim::Encoder& enc) const {
  return JsEncoder(env_, enc, object_prototype.Value(), object_keys.Value(), array_is_array.Value(),
                   object_get_prototype_of.Value());
}

void Addon::trim_scratch() {
  // Keep up to 1 MiB of response scratch between calls.
  if (response_.capacity() > 1024 * 1024) dalshim::Bytes(kResponseScratch).swap(response_);
}

void Addon::account_scratch() {
  const int64_t now = static_cast<int64_t>(response_.capacity());
  if (now != reported_bytes_) {
    adjust_external(env_, now - reported_bytes_);
    reported_bytes_ = now;
  }
}

Napi::Value Addon::dal_error(int32_t code, const std::string& message, int64_t request_id, int32_t sqlite_code) const {
  Napi::Env env = env_;
  Napi::Object info = Napi::Object::New(env);
  info.Set("code", dalshim::code_name(code));
  info.Set("errno", Napi::Number::New(env, code));
  if (request_id >= 0) info.Set("requestId", Napi::Number::New(env, static_cast<double>(request_id)));
  if (sqlite_code != 0) info.Set("sqliteCode", Napi::Number::New(env, sqlite_code));
  if (dal_error_ctor.IsEmpty()) {
    // init() not called (the addon used without lib/): a plain Error with
    // the same fields, so nothing is lost.
    Napi::Error e = Napi::Error::New(env, message);
    e.Set("code", info.Get("code"));
    e.Set("errno", info.Get("errno"));
    if (request_id >= 0) e.Set("requestId", info.Get("requestId"));
    if (sqlite_code != 0) e.Set("sqliteCode", info.Get("sqliteCode"));
    return e.Value();
  }
  return dal_error_ctor.New({Napi::String::New(env, message), info});
}

std::string c_string(const Napi::Value& v, const char* what) {
  std::string s = v.As<Napi::String>();
  if (s.find('\0') != std::string::npos)
    throw Napi::TypeError::New(v.Env(), std::string(what) + ": contains a NUL character");
  return s;
}

}  // namespace dalkit

// The registration macro pastes the function name into an identifier: it
// needs an unqualified name.
static Napi::Object InitDalkit(Napi::Env env, Napi::Object exports) { return dalkit::InitModule(env, exports); }
NODE_API_MODULE(dalkit, InitDalkit)
