#include "async_query.hpp"

#include <cstring>

#include "addon.hpp"
#include "database.hpp"
#include "external_memory.hpp"
#include "uint8_bytes.hpp"

namespace dalkit {
namespace {

// Initial response buffer of a worker: fits the common response; query_to
// takes a larger one pending on the same pool thread.
constexpr size_t kInitialResponse = 4096;

}  // namespace

AsyncQuery::AsyncQuery(Napi::Env env, Database* db, Kind kind, std::vector<uint8_t> request)
    : Napi::AsyncWorker(env, "dalkit.query"),
      kind_(kind),
      db_(db),
      db_ref_(Napi::Persistent(db->Value())),
      deferred_(Napi::Promise::Deferred::New(env)),
      request_(std::move(request)) {}

AsyncQuery::~AsyncQuery() = default;

Napi::Promise AsyncQuery::queue() {
  response_.resize(kInitialResponse);
  reported_ = static_cast<int64_t>(request_.capacity() + response_.capacity());
  adjust_external(Env(), reported_);
  db_->async_started();
  Napi::Promise p = deferred_.Promise();
  Queue();  // the worker deletes itself after OnOK/OnError
  return p;
}

Napi::Promise AsyncQuery::Raw(Napi::Env env, Database* db, std::vector<uint8_t> request) {
  return (new AsyncQuery(env, db, Kind::Raw, std::move(request)))->queue();
}

Napi::Promise AsyncQuery::Into(Napi::Env env, Database* db, std::vector<uint8_t> request, Napi::Object target) {
  auto* w = new AsyncQuery(env, db, Kind::Into, std::move(request));
  w->target_ref_ = Napi::Persistent(target);
  return w->queue();
}

// Pool thread: no JS here.  The handle cannot change under us: close() is
// deferred while this query is in flight.
void AsyncQuery::Execute() {
  // An empty vector's data() may be null, which the shim reads as "req is
  // NULL": an empty request gets a valid pointer to nothing (see bytes_arg).
  static const uint8_t no_bytes[1] = {};
  std::span<const uint8_t> req =
      request_.empty() ? std::span<const uint8_t>(no_bytes, 0) : std::span<const uint8_t>(request_);
  auto n = db_->db_.query_to(req, response_);
  if (!n) {
    code_ = n.error().code();
    message_ = n.error().message();
    return;
  }
  response_len_ = *n;
}

void AsyncQuery::OnOK() { settle(Env()); }

// Only reached if node-addon-api itself reports a failure (Execute never
// calls SetError): reject with that error, after the same bookkeeping.
void AsyncQuery::OnError(const Napi::Error& e) {
  Napi::Env env = Env();
  Napi::HandleScope scope(env);
  adjust_external(env, -reported_);
  reported_ = 0;
  db_->async_finished(env);
  deferred_.Reject(e.Value());
}

void AsyncQuery::settle(Napi::Env env) {
  Napi::HandleScope scope(env);
  Addon& a = Addon::of(env);
  adjust_external(env, -reported_);
  reported_ = 0;
  db_->async_finished(env);
  if (code_ < 0) {
    deferred_.Reject(a.dal_error(code_, message_));
    return;
  }
  db_->count(request_.size(), response_len_);
  std::span<const uint8_t> resp(response_.data(), response_len_);
  try {
    switch (kind_) {
      case Kind::Raw: deferred_.Resolve(Napi::Buffer<uint8_t>::Copy(env, resp.data(), resp.size())); return;
      case Kind::Into: {
        // Re-read: the target may have been detached meanwhile (then it
        // holds nothing, and the response waits for takePending).
        auto target = uint8_bytes(env, target_ref_.Value()).value_or(std::span<uint8_t>());
        if (response_len_ <= target.size()) {
          if (response_len_ > 0) std::memcpy(target.data(), resp.data(), response_len_);
        } else {
          db_->hold_pending(env, std::vector<uint8_t>(resp.begin(), resp.end()));
        }
        deferred_.Resolve(Napi::Number::New(env, static_cast<double>(response_len_)));
        return;
      }
    }
  } catch (const Napi::Error& e) {
    deferred_.Reject(e.Value());
  }
}

}  // namespace dalkit
