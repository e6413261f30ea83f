// addon.hpp -- per-environment state of dalkit.node.
//
// The addon is context-aware: each Node environment that loads it (the main
// thread, every worker_thread) gets its own Addon, stored as the
// environment's instance data and deleted when that environment shuts down.
// Nothing here is process-global; what is process-wide (the loaded DAL, the
// shim's counters, the monitor's runs) lives in the shim itself.
#pragma once

#include <napi.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dalshim.hpp"

namespace dalkit {

class JsEncoder;

class Addon {
 public:
  explicit Addon(Napi::Env env);
  ~Addon();
  Addon(const Addon&) = delete;
  Addon& operator=(const Addon&) = delete;

  static Addon& of(Napi::Env env) { return *env.GetInstanceData<Addon>(); }
  // An encoder of JS values into enc, for this environment.
  JsEncoder encoder_for(dalshim::Encoder& enc) const;

  // A DalError (lib/errors.js) for a shim/DAL code, ready to throw or to
  // reject a promise with.  request_id < 0: unknown.
  // sqlite_code != 0: SQLite's extended result code of an SQL error.
  Napi::Value dal_error(int32_t code, const std::string& message, int64_t request_id = -1,
                        int32_t sqlite_code = 0) const;
  Napi::Value dal_error(const dalshim::Error& e) const {
    return dal_error(e.code(), e.message(), e.is_sql() ? static_cast<int64_t>(e.id()) : -1, e.sqlite_code());
  }
  [[noreturn]] void throw_dal_error(const dalshim::Error& e) const { throw Napi::Error(env_, dal_error(e)); }
  [[noreturn]] void throw_dal_error(int32_t code, const std::string& message) const {
    throw Napi::Error(env_, dal_error(code, message));
  }

  // Scratch for synchronous calls on this environment's thread: the response
  // buffer of queryRaw, reused so a call allocates only the JS copy.  Its
  // capacity is reported to V8 (AdjustExternalMemory) as native memory held
  // on behalf of JS.
  //
  // A Lease gives one synchronous call exclusive use of the scratch; a call
  // made while it is leased gets a private buffer instead.
  class Lease {
   public:
    explicit Lease(Addon& a) : a_(a), shared_(!a.scratch_busy_) {
      if (shared_) a_.scratch_busy_ = true;
    }
    ~Lease() {
      if (shared_) {
        a_.scratch_busy_ = false;
        a_.trim_scratch();
        a_.account_scratch();
      }
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    // The response buffer for Database::query_to (which sizes it).
    dalshim::Bytes& response() { return shared_ ? a_.response_ : own_response_; }

   private:
    Addon& a_;
    bool shared_;
    dalshim::Bytes own_response_;
  };
  // Report a change of the scratch's capacity to V8.
  void account_scratch();
  // After a response far larger than usual, give the memory back.
  void trim_scratch();

  Napi::FunctionReference database_ctor;
  Napi::FunctionReference dal_error_ctor;           // set by init() from lib/errors.js
  Napi::ObjectReference object_prototype;           // Object.prototype, for the encoder's plain-object test
  Napi::FunctionReference object_keys;              // Object.keys, for the encoder's map keys
  Napi::FunctionReference array_is_array;           // Array.isArray, for the encoder's Proxy-of-array test
  Napi::FunctionReference object_get_prototype_of;  // Object.getPrototypeOf, for Proxies (below)

 private:
  Napi::Env env_;
  bool scratch_busy_ = false;
  dalshim::Bytes response_;
  int64_t reported_bytes_ = 0;
};

// A request id argument: a safe non-negative integer or a BigInt < 2^63.
uint64_t request_id_arg(const Napi::Value& v);

// The UTF-8 text of a JS string that is handed on as a C string (a path, an
// option string).  A string containing NUL is refused with a TypeError
// naming `what`, as ffi/abi.js cString() does: C would read only the part
// before it and open or load something else.
std::string c_string(const Napi::Value& v, const char* what);

}  // namespace dalkit
