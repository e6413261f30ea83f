#include "dalshim/database.hpp"

#include <cstring>
#include <memory>

#include "accounting.hpp"
#include "dal.h"
#include "last_error.hpp"

namespace dalshim {

DalBuffer& DalBuffer::operator=(DalBuffer&& o) noexcept {
  if (this != &o) {
    reset();
    lib_ = o.lib_;
    p_ = o.p_;
    n_ = o.n_;
    o.p_ = nullptr;
    o.n_ = 0;
  }
  return *this;
}

void DalBuffer::reset() noexcept {
  if (p_ != nullptr && lib_ != nullptr) lib_->free(p_);
  p_ = nullptr;
  n_ = 0;
}

Result<Database> Database::open(const std::string& data_dir, const std::string& options, Library* lib) {
  if (lib == nullptr) {
    auto l = Library::default_instance();
    if (!l) return l.error();
    lib = *l;
  }
  int64_t h = lib->open(data_dir.c_str(), options.empty() ? nullptr : options.c_str());
  if (h <= 0) return detail::dal_fail(lib, h);
  detail::handle_opened(h);
  return Database(lib, h);
}

Database::Database(Database&& o) noexcept
    : lib_(o.lib_), handle_(o.handle_), db_name_(std::move(o.db_name_)) {
  o.handle_ = 0;
}

Database& Database::operator=(Database&& o) noexcept {
  if (this != &o) {
    (void)close();
    lib_ = o.lib_;
    handle_ = o.handle_;
    db_name_ = std::move(o.db_name_);
    o.handle_ = 0;
  }
  return *this;
}

Database::~Database() { (void)close(); }

Status Database::close() {
  if (handle_ <= 0) return Ok{};
  int64_t h = handle_;
  handle_ = 0;
  int32_t rc = lib_->close(h);
  if (rc < 0) return detail::dal_fail(lib_, rc, h);
  detail::handle_closed(h);
  return Ok{};
}

namespace {

// Per-thread scratch for run(): the encoded request and the response.
struct Scratch {
  Buffer req;
  std::vector<uint8_t> resp = std::vector<uint8_t>(64 * 1024);
};
Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

}  // namespace

Result<DalBuffer> Database::query(std::span<const uint8_t> req) const {
  if (lib_ == nullptr) return detail::fail(DAL_E_HANDLE, "database is not open");
  void* p = nullptr;
  detail::count_call(req.size());
  int64_t n = lib_->query(handle_, req.data(), req.size(), &p);
  if (n < 0) return detail::dal_fail(lib_, n, handle_);
  detail::count(detail::kResponseBytes, n);
  return DalBuffer(lib_, p, static_cast<size_t>(n));
}

Result<int64_t> Database::query_into(std::span<const uint8_t> req, std::span<uint8_t> buf) const {
  if (lib_ == nullptr) return detail::fail(DAL_E_HANDLE, "database is not open");
  detail::count_call(req.size());
  int64_t n = lib_->query_into(handle_, req.data(), req.size(), buf.data(), buf.size());
  if (n < 0) return detail::dal_fail(lib_, n, handle_);
  if (static_cast<uint64_t>(n) <= buf.size()) detail::count(detail::kResponseBytes, n);
  return n;
}

Result<int64_t> Database::take_pending(std::span<uint8_t> buf) const {
  if (lib_ == nullptr) return detail::fail(DAL_E_MISUSE, "database is not open");
  int64_t n = lib_->take_pending(buf.data(), buf.size());
  if (n < 0) return detail::dal_fail(lib_, n);
  if (static_cast<uint64_t>(n) <= buf.size()) detail::count(detail::kResponseBytes, n);
  return n;
}

Status Database::query_bytes(std::span<const uint8_t> req, std::vector<uint8_t>& out) const {
  if (out.size() < 4096) out.resize(4096);
  auto n = query_into(req, out);
  if (!n) return n.error();
  if (static_cast<size_t>(*n) > out.size()) {
    out.resize(static_cast<size_t>(*n));
    auto m = take_pending(out);
    if (!m) return m.error();
  }
  out.resize(static_cast<size_t>(*n));
  return Ok{};
}

Result<Response> Database::run_raw(std::span<const uint8_t> req) const {
  Scratch& s = scratch();
  auto n = query_into(req, s.resp);
  if (!n) return n.error();
  size_t len = static_cast<size_t>(*n);
  if (len > s.resp.size()) {
    std::vector<uint8_t> big(len);
    auto m = take_pending(big);
    if (!m) return m.error();
    return decode_response(big);
  }
  return decode_response(std::span<const uint8_t>(s.resp.data(), len));
}

Result<Response> Database::run(const Query& q) const {
  Scratch& s = scratch();
  s.req.clear();
  q.encode(s.req);
  // run_raw uses s.resp only; s.req stays intact during the call.
  return run_raw(s.req.span());
}

Result<Rows> Database::rows(const Query& q) const {
  auto r = run(q);
  if (!r) return r.error();
  if (!r->is_rows()) return detail::fail(DALSHIM_E_RESPONSE, "expected a rows response {i,c,r}, got {i,ra,li}");
  return std::move(r->rows());
}

Result<ExecResult> Database::exec(const Query& q) const {
  auto r = run(q);
  if (!r) return r.error();
  if (r->is_rows()) return detail::fail(DALSHIM_E_RESPONSE, "expected {i,ra,li}, got a rows response");
  return r->exec();
}

}  // namespace dalshim
