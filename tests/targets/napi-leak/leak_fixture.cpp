// leak_fixture.cpp -- a test fixture (not product code): an N-API addon
// (node-addon-api) that leaks the way real addons do, for the --target
// verdict tests (tests/targets/napi-leak.mjs, docs/targets.md "Leak
// fixtures").  Every kind has a clean twin that does the same work and gives
// everything back, so a test can hold the verdict to the difference:
//
//   Handle          an ObjectWrap holding `bytes` of malloc'ed payload.
//                   retain() makes its napi_ref strong (ObjectWrap::Ref);
//                   release() makes it weak again.  A caller that retains
//                   and never releases leaks the JS object, the wrap's
//                   napi_ref and the payload (the destructor never runs).
//   churn(n, leak)  malloc(n) and touch it; free it unless `leak`.
//   holdBuffer(n, leak)
//                   a new JS Buffer of n bytes kept alive by a strong
//                   napi_ref the addon owns: with `leak` every one stays,
//                   otherwise the previous one is released first.  The addon
//                   itself allocates nothing per call (reserveSlots(k) makes
//                   its table of k references first), so the JS layers grow
//                   and the runtime's allocations (the backing store, the
//                   napi_ref), never this DSO.
//   reserve(n)      a one-time block of n bytes, touched, kept until
//                   releaseAll(): the warm-up step.
//   counts()        live handles, held buffers, reserved bytes.
//
// State lives in the addon's instance data (Napi::Addon), so every worker
// thread that loads the addon has its own; only the count of live handles is
// process-wide (a Handle may be finalized after its environment's instance
// data, when a thread ends).
#include <napi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

namespace {

// Keeps a block's address where the compiler must assume it is read, so a
// malloc whose result is never used (the leak) or that is freed at once (the
// clean twin) is not optimised away.
void* volatile g_last_block = nullptr;

std::atomic<std::int64_t> g_live_handles{0};

// Throws a JS RangeError unless value is an integer in [lo, hi].
std::size_t size_arg(const Napi::CallbackInfo& info, std::size_t i, double lo, double hi) {
  if (info.Length() <= i || !info[i].IsNumber()) {
    throw Napi::TypeError::New(info.Env(), "argument " + std::to_string(i) + " must be a number");
  }
  const double v = info[i].As<Napi::Number>().DoubleValue();
  if (!(v >= lo && v <= hi) || v != static_cast<double>(static_cast<std::uint64_t>(v))) {
    throw Napi::RangeError::New(info.Env(), "argument " + std::to_string(i) + " must be an integer in [" +
                                                std::to_string(static_cast<std::uint64_t>(lo)) + ", " +
                                                std::to_string(static_cast<std::uint64_t>(hi)) + "]");
  }
  return static_cast<std::size_t>(v);
}

bool bool_arg(const Napi::CallbackInfo& info, std::size_t i) {
  if (info.Length() <= i || !info[i].IsBoolean()) {
    throw Napi::TypeError::New(info.Env(), "argument " + std::to_string(i) + " must be a boolean");
  }
  return info[i].As<Napi::Boolean>().Value();
}

// malloc(n) with every page touched, or a JS Error.
void* touched_block(Napi::Env env, std::size_t n) {
  void* p = std::malloc(n);
  if (p == nullptr) throw Napi::Error::New(env, "malloc(" + std::to_string(n) + ") failed");
  std::memset(p, 0xa5, n);
  g_last_block = p;
  return p;
}

constexpr double kMaxBlock = 1 << 30;  // 1 GiB: a fixture, not a memory hog

class Handle : public Napi::ObjectWrap<Handle> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Handle",
                       {InstanceMethod<&Handle::Retain>("retain"), InstanceMethod<&Handle::Release>("release")});
  }

  explicit Handle(const Napi::CallbackInfo& info);
  ~Handle() override;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

 private:
  Napi::Value Retain(const Napi::CallbackInfo& info) {
    Ref();
    return info.Env().Undefined();
  }
  Napi::Value Release(const Napi::CallbackInfo& info) {
    Unref();
    return info.Env().Undefined();
  }

  void* payload_;
};

class Fixture : public Napi::Addon<Fixture> {
 public:
  Fixture(Napi::Env env, Napi::Object exports) {
    DefineAddon(exports, {
                             InstanceMethod<&Fixture::Churn>("churn"),
                             InstanceMethod<&Fixture::ReserveSlots>("reserveSlots"),
                             InstanceMethod<&Fixture::HoldBuffer>("holdBuffer"),
                             InstanceMethod<&Fixture::Reserve>("reserve"),
                             InstanceMethod<&Fixture::ReleaseAll>("releaseAll"),
                             InstanceMethod<&Fixture::Counts>("counts"),
                         });
    exports.Set("Handle", Handle::Define(env));
  }
  ~Fixture() { FreeReserved(); }
  Fixture(const Fixture&) = delete;
  Fixture& operator=(const Fixture&) = delete;

 private:
  Napi::Value Churn(const Napi::CallbackInfo& info) {
    const std::size_t n = size_arg(info, 0, 1, kMaxBlock);
    const bool leak = bool_arg(info, 1);
    void* p = touched_block(info.Env(), n);
    if (!leak) std::free(p);
    return info.Env().Undefined();
  }

  // The table of held Buffers gets its room (touched) before the run, so
  // holdBuffer allocates nothing in this DSO.
  Napi::Value ReserveSlots(const Napi::CallbackInfo& info) {
    const std::size_t n = size_arg(info, 0, 1, 1u << 28);
    DeleteBuffers(info.Env());
    try {
      slots_.assign(n, nullptr);
    } catch (const std::bad_alloc&) {
      throw Napi::Error::New(info.Env(), "reserveSlots: out of memory");
    }
    return info.Env().Undefined();
  }

  Napi::Value HoldBuffer(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    const std::size_t n = size_arg(info, 0, 1, kMaxBlock);
    const bool leak = bool_arg(info, 1);
    if (!leak) DeleteBuffers(env);  // the previous Buffer can be collected
    if (held_ == slots_.size()) {
      throw Napi::Error::New(
          env, "holdBuffer: " + std::to_string(held_) + " slots are full (reserveSlots with the iteration count)");
    }
    Napi::Buffer<std::uint8_t> b = Napi::Buffer<std::uint8_t>::New(env, n);
    std::memset(b.Data(), 0x5a, n);
    NAPI_THROW_IF_FAILED(env, napi_create_reference(env, b, 1, &slots_[held_]), Napi::Value());
    ++held_;
    return b;
  }

  Napi::Value Reserve(const Napi::CallbackInfo& info) {
    const std::size_t n = size_arg(info, 0, 1, 16 * kMaxBlock);
    reserved_.push_back({touched_block(info.Env(), n), n});
    return info.Env().Undefined();
  }

  Napi::Value ReleaseAll(const Napi::CallbackInfo& info) {
    FreeReserved();
    DeleteBuffers(info.Env());
    return info.Env().Undefined();
  }

  Napi::Value Counts(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    std::size_t bytes = 0;
    for (const Block& b : reserved_) bytes += b.size;
    Napi::Object o = Napi::Object::New(env);
    o.Set("handles", Napi::Number::New(env, static_cast<double>(g_live_handles.load())));
    o.Set("buffers", Napi::Number::New(env, static_cast<double>(held_)));
    o.Set("reservedBytes", Napi::Number::New(env, static_cast<double>(bytes)));
    return o;
  }

  void DeleteBuffers(napi_env env) {
    for (std::size_t k = 0; k < held_; ++k) napi_delete_reference(env, slots_[k]);
    held_ = 0;
  }

  void FreeReserved() {
    for (const Block& b : reserved_) std::free(b.data);
    reserved_.clear();
  }

  struct Block {
    void* data;
    std::size_t size;
  };
  // Strong references to the held Buffers: slots_[0, held_).
  std::vector<napi_ref> slots_;
  std::size_t held_ = 0;
  std::vector<Block> reserved_;
};

Handle::Handle(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<Handle>(info), payload_(touched_block(info.Env(), size_arg(info, 0, 1, kMaxBlock))) {
  ++g_live_handles;
}

Handle::~Handle() {
  std::free(payload_);
  --g_live_handles;
}

}  // namespace

NODE_API_ADDON(Fixture)
