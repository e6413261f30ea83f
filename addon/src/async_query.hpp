// async_query.hpp -- one query on the libuv thread pool, settling a Promise.
//
// The request is encoded on the JS thread before the worker is queued (JS
// values cannot be read anywhere else) and copied into the worker, so the
// caller may reuse its buffers at once.  Execute() runs the shim call on a
// pool thread into the worker's own response buffer (ownership mode b, with
// take_pending on that same thread when it is too small); OnOK() decodes or
// copies the response on the JS thread.  The worker holds a reference to the
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
#include "js_decoder.hpp"

namespace dalkit {

class Database;

class AsyncQuery : public Napi::AsyncWorker {
 public:
  // A builder query: resolves with the decoded rows / exec result.
  static Napi::Promise Builder(Napi::Env env, Database* db, std::vector<uint8_t> request, Shape shape, uint64_t id);
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
  enum class Kind { Decoded, Raw, Into };
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
  Shape shape_ = Shape::Objects;
  uint64_t id_ = 0;
  int32_t code_ = 0;  // < 0: the shim call failed
  std::string message_;
  int64_t reported_ = 0;  // bytes reported with AdjustExternalMemory
};

}  // namespace dalkit
