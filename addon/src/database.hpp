// database.hpp -- the JS class Database: one DAL handle, owned by a JS object.
//
// Lifecycle: the handle is closed by close() or, if the object is collected
// first, by its finalizer (~Database).  A second close() does nothing; any
// other call after close() throws DalError DALSHIM_E_CLOSED.  A close() while
// async queries are in flight marks the object closed at once and closes the
// handle when the last of them completes (on this thread), so a pool thread
// never sees a handle change under it.
#pragma once

#include <napi.h>

#include <cstdint>
#include <span>
#include <vector>

#include "dalshim.hpp"

namespace dalkit {

class Addon;
class AsyncQuery;

class Database : public Napi::ObjectWrap<Database> {
 public:
  static Napi::Function Init(Napi::Env env, Addon& addon);

  explicit Database(const Napi::CallbackInfo& info);
  ~Database() override;

 private:
  friend class AsyncQuery;

  // JS methods.
  Napi::Value Close(const Napi::CallbackInfo& info);
  Napi::Value IsOpen(const Napi::CallbackInfo& info);
  Napi::Value QueryRaw(const Napi::CallbackInfo& info);
  Napi::Value QueryRawAsync(const Napi::CallbackInfo& info);
  Napi::Value QueryInto(const Napi::CallbackInfo& info);
  Napi::Value QueryIntoAsync(const Napi::CallbackInfo& info);
  Napi::Value TakePending(const Napi::CallbackInfo& info);
  Napi::Value Exec(const Napi::CallbackInfo& info);
  Napi::Value Counters(const Napi::CallbackInfo& info);

  void check_open(Napi::Env env) const;
  // Run req through the shim (mode b, Database::query_to: a response larger
  // than out is taken pending, never re-sent); out holds exactly the
  // response afterwards.  Throws DalError on failure.
  std::span<const uint8_t> run(Napi::Env env, std::span<const uint8_t> req, dalshim::Bytes& out);
  // Keep a response that did not fit the caller's target until takePending().
  void hold_pending(Napi::Env env, std::vector<uint8_t> bytes);
  void count(size_t req, size_t resp) {
    ++queries_;
    request_bytes_ += req;
    response_bytes_ += resp;
  }
  // Async bookkeeping (JS thread only).
  void async_started() { ++in_flight_; }
  void async_finished(Napi::Env env);
  void close_handle(Napi::Env env);

  dalshim::Database db_;
  bool closed_ = false;           // as JS sees it
  int in_flight_ = 0;             // async queries not yet completed
  std::vector<uint8_t> pending_;  // a queryInto response waiting for takePending()
  uint64_t queries_ = 0, request_bytes_ = 0, response_bytes_ = 0;
};

}  // namespace dalkit
