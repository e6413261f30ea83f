// async_query.hpp -- one query on the libuv thread pool, settling a Promise.
//
// The request bytes are copied into the worker before it is queued, so the
// caller may reuse its buffers at once.  Execute() runs the shim call on a
// pool thread into the worker's own response buffer (ownership mode b, with
// take_pending on that same thread when it is too small); OnOK() copies the
// response on the JS thread (lib/codec.js decodes it there).  The worker holds a reference to the
// Database's JS object, so the Database cannot be collected while a query is
// in flight, and it tells the Database when it is done (deferred close()).
//
// The bytes a worker holds while in flight are native memory kept for JS:
// they are reported to V8 with AdjustExternalMemory and released in OnOK.
#pragma once

#include <napi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "dalshim/bytes.hpp"

namespace dalkit {

class Database;

class AsyncQuery : public Napi::AsyncWorker {
 public:
  // queryRawAsync: resolves with a Buffer holding a copy of the response.
  static Napi::Promise Raw(Napi::Env env, Database* db, std::vector<uint8_t> request);
  // queryIntoAsync: resolves with n; the response is copied into target on
  // the JS thread, or held by the Database for takePending() if it does not fit.
  static Napi::Promise Into(Napi::Env env, Database* db, std::vector<uint8_t> request, Napi::Object target);

  ~AsyncQuery() override;

 protected:
  void Execute() override;
  void OnOK() override;
  void OnError(const Napi::Error& e) override;

 private:
  enum class Kind { Raw, Into };
  AsyncQuery(Napi::Env env, Database* db, Kind kind, std::vector<uint8_t> request);
  Napi::Promise queue();
  void settle(Napi::Env env);

  Kind kind_;
  Database* db_;
  Napi::ObjectReference db_ref_;      // keeps db_ alive while in flight
  Napi::ObjectReference target_ref_;  // Into: the caller's target
  Napi::Promise::Deferred deferred_;
  std::vector<uint8_t> request_;
  dalshim::Bytes response_;
  size_t response_len_ = 0;
  int32_t code_ = 0;  // < 0: the shim call failed
  std::string message_;
  int64_t reported_ = 0;  // bytes reported with AdjustExternalMemory
};

}  // namespace dalkit
