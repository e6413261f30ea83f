#include "monitor.hpp"

#include "addon.hpp"

#include <dalmonitor.h>
#include <dalshim.h>

#include <cmath>
#include <string>
#include <vector>

namespace dalkit {
namespace {

// Throw for a negative dalmon_* result; return it otherwise.
int64_t checked(Napi::Env env, const char* fn, int64_t rc) {
  if (rc >= 0) return rc;
  Napi::Error e = Napi::Error::New(env, std::string(fn) + ": " + dalmon_last_error());
  e.Set("code", dalshim_code_name(static_cast<int32_t>(rc)));  // names DALMON_E_* too
  e.Set("errno", Napi::Number::New(env, static_cast<double>(rc)));
  throw e;
}

// An integer argument; -1 ("not available") allowed where the C ABI allows it.
int64_t int_arg(const Napi::CallbackInfo& info, size_t i, const char* fn) {
  if (i < info.Length()) {
    if (info[i].IsNumber()) {
      double d = info[i].As<Napi::Number>().DoubleValue();
      if (std::isfinite(d)) return static_cast<int64_t>(d);
    } else if (info[i].IsBigInt()) {
      bool lossless = false;
      int64_t v = info[i].As<Napi::BigInt>().Int64Value(&lossless);
      if (lossless) return v;
    }
  }
  throw Napi::TypeError::New(info.Env(), std::string(fn) + ": argument " + std::to_string(i) + " must be an integer");
}

std::string string_arg(const Napi::CallbackInfo& info, size_t i, const char* fn) {
  // Every string argument here reaches C as a C string.
  if (i < info.Length() && info[i].IsString())
    return c_string(info[i], (std::string(fn) + ": argument " + std::to_string(i)).c_str());
  throw Napi::TypeError::New(info.Env(), std::string(fn) + ": argument " + std::to_string(i) + " must be a string");
}

Napi::Value Num(Napi::Env env, int64_t v) { return Napi::Number::New(env, static_cast<double>(v)); }

Napi::Value Start(const Napi::CallbackInfo& info) {
  std::string params = string_arg(info, 0, "monitor.start");
  return Num(info.Env(), checked(info.Env(), "dalmon_start", dalmon_start(params.c_str())));
}

Napi::Value MarkStartup(const Napi::CallbackInfo& info) {
  const char* fn = "monitor.markStartup";
  return Num(info.Env(),
             checked(info.Env(), "dalmon_mark_startup",
                     dalmon_mark_startup(int_arg(info, 0, fn), int_arg(info, 1, fn), int_arg(info, 2, fn))));
}

// sample(run, queries, jsHeapUsed, jsHeapTotal, jsExternal, jsArrayBuffers)
Napi::Value Sample(const Napi::CallbackInfo& info) {
  const char* fn = "monitor.sample";
  return Num(info.Env(), checked(info.Env(), "dalmon_sample",
                                 dalmon_sample(int_arg(info, 0, fn), int_arg(info, 1, fn), int_arg(info, 2, fn),
                                               int_arg(info, 3, fn), int_arg(info, 4, fn), int_arg(info, 5, fn))));
}

// recordLatencies(run, Float64Array ns, count): latencies in nanoseconds
// (JS clocks give doubles); converted here, once per batch.
Napi::Value RecordLatencies(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* fn = "monitor.recordLatencies";
  const int64_t run = int_arg(info, 0, fn);
  if (info.Length() < 2 || !info[1].IsTypedArray() ||
      info[1].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array)
    throw Napi::TypeError::New(env, "monitor.recordLatencies: argument 1 must be a Float64Array");
  auto ns = info[1].As<Napi::Float64Array>();
  const int64_t count = int_arg(info, 2, fn);
  if (count < 0 || static_cast<size_t>(count) > ns.ElementLength())
    throw Napi::RangeError::New(env, "monitor.recordLatencies: count out of range");
  thread_local std::vector<int64_t> batch;
  batch.resize(static_cast<size_t>(count));
  for (size_t i = 0; i < batch.size(); ++i) {
    double d = ns[i];
    batch[i] = std::isfinite(d) ? static_cast<int64_t>(d) : -1;  // -1: rejected by the monitor
  }
  return Num(env,
             checked(env, "dalmon_record_latencies_ns", dalmon_record_latencies_ns(run, batch.data(), batch.size())));
}

// count(run, queries, bytesIn, bytesOut, errors)
Napi::Value Count(const Napi::CallbackInfo& info) {
  const char* fn = "monitor.count";
  return Num(info.Env(), checked(info.Env(), "dalmon_count",
                                 dalmon_count(int_arg(info, 0, fn), int_arg(info, 1, fn), int_arg(info, 2, fn),
                                              int_arg(info, 3, fn), int_arg(info, 4, fn))));
}

Napi::Value Fail(const Napi::CallbackInfo& info) {
  std::string reason = string_arg(info, 1, "monitor.fail");
  return Num(info.Env(),
             checked(info.Env(), "dalmon_fail", dalmon_fail(int_arg(info, 0, "monitor.fail"), reason.c_str())));
}

// markInterrupted(run, cause): the run stopped before all planned queries
// (Ctrl-C); after the END sample, before finish().
Napi::Value MarkInterrupted(const Napi::CallbackInfo& info) {
  std::string cause = string_arg(info, 1, "monitor.markInterrupted");
  return Num(info.Env(), checked(info.Env(), "dalmon_mark_interrupted",
                                 dalmon_mark_interrupted(int_arg(info, 0, "monitor.markInterrupted"), cause.c_str())));
}

Napi::Value Finish(const Napi::CallbackInfo& info) {
  return Num(info.Env(), checked(info.Env(), "dalmon_finish", dalmon_finish(int_arg(info, 0, "monitor.finish"))));
}

// A report (text or JSON) as a JS string: length query, then the copy.
template <int64_t (*Report)(int64_t, char*, size_t)>
Napi::Value ReportString(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const int64_t run = int_arg(info, 0, "monitor.report");
  const int64_t n = checked(env, "dalmon_report", Report(run, nullptr, 0));
  std::string text(static_cast<size_t>(n) + 1, '\0');
  checked(env, "dalmon_report", Report(run, text.data(), text.size()));
  text.resize(static_cast<size_t>(n));
  return Napi::String::New(env, text);
}

Napi::Value WriteJson(const Napi::CallbackInfo& info) {
  std::string path = string_arg(info, 1, "monitor.writeJson");
  return Num(info.Env(), checked(info.Env(), "dalmon_write_json",
                                 dalmon_write_json(int_arg(info, 0, "monitor.writeJson"), path.c_str())));
}

Napi::Value End(const Napi::CallbackInfo& info) {
  return Num(info.Env(), checked(info.Env(), "dalmon_end", dalmon_end(int_arg(info, 0, "monitor.end"))));
}

// borderline(run) -> 1 | 0 after finish(); markConfirmation(run, firstRun):
// run repeats the borderline firstRun (--confirm, dalmonitor.h).
Napi::Value Borderline(const Napi::CallbackInfo& info) {
  return Num(info.Env(),
             checked(info.Env(), "dalmon_borderline", dalmon_borderline(int_arg(info, 0, "monitor.borderline"))));
}

Napi::Value MarkConfirmation(const Napi::CallbackInfo& info) {
  const char* fn = "monitor.markConfirmation";
  return Num(info.Env(), checked(info.Env(), "dalmon_mark_confirmation",
                                 dalmon_mark_confirmation(int_arg(info, 0, fn), int_arg(info, 1, fn))));
}

Napi::Value NowNs(const Napi::CallbackInfo& info) { return Num(info.Env(), dalmon_now_ns()); }
Napi::Value RssBytes(const Napi::CallbackInfo& info) { return Num(info.Env(), dalmon_rss_bytes()); }
Napi::Value LastError(const Napi::CallbackInfo& info) { return Napi::String::New(info.Env(), dalmon_last_error()); }

}  // namespace

Napi::Object monitor_exports(Napi::Env env) {
  Napi::Object m = Napi::Object::New(env);
  m.Set("start", Napi::Function::New(env, Start, "start"));
  m.Set("markStartup", Napi::Function::New(env, MarkStartup, "markStartup"));
  m.Set("sample", Napi::Function::New(env, Sample, "sample"));
  m.Set("recordLatencies", Napi::Function::New(env, RecordLatencies, "recordLatencies"));
  m.Set("count", Napi::Function::New(env, Count, "count"));
  m.Set("fail", Napi::Function::New(env, Fail, "fail"));
  m.Set("markInterrupted", Napi::Function::New(env, MarkInterrupted, "markInterrupted"));
  m.Set("finish", Napi::Function::New(env, Finish, "finish"));
  m.Set("borderline", Napi::Function::New(env, Borderline, "borderline"));
  m.Set("markConfirmation", Napi::Function::New(env, MarkConfirmation, "markConfirmation"));
  m.Set("reportText", Napi::Function::New(env, ReportString<dalmon_report_text>, "reportText"));
  m.Set("reportJson", Napi::Function::New(env, ReportString<dalmon_report_json>, "reportJson"));
  m.Set("writeJson", Napi::Function::New(env, WriteJson, "writeJson"));
  m.Set("end", Napi::Function::New(env, End, "end"));
  m.Set("nowNs", Napi::Function::New(env, NowNs, "nowNs"));
  m.Set("rssBytes", Napi::Function::New(env, RssBytes, "rssBytes"));
  m.Set("lastError", Napi::Function::New(env, LastError, "lastError"));
  m.Set("version", Napi::Number::New(env, dalmon_version()));
  return m;
}

}  // namespace dalkit
