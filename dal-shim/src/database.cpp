// database.cpp -- the C++ API over the one implementation (operations.hpp).
#include "dalshim/database.hpp"

#include <utility>

#include "last_error.hpp"
#include "operations.hpp"

namespace dalshim {

DalBuffer& DalBuffer::operator=(DalBuffer&& o) noexcept {
  if (this != &o) {
    reset();
    p_ = std::exchange(o.p_, nullptr);
    n_ = std::exchange(o.n_, 0);
  }
  return *this;
}

void DalBuffer::reset() noexcept {
  if (p_ != nullptr) (void)detail::free_buffer(p_);  // live by construction: cannot fail
  p_ = nullptr;
  n_ = 0;
}

Result<Database> Database::open(const std::string& data_dir, const std::string& options, Library* lib) {
  if (lib == nullptr) {
    auto l = Library::default_instance();
    if (!l) return l.error();
    lib = *l;
  }
  const int64_t h = detail::open_handle(lib, data_dir.c_str(), options.empty() ? nullptr : options.c_str());
  if (h <= 0) return detail::last_error_as_error();
  return Database(lib, h);
}

Database::Database(Database&& o) noexcept
    : lib_(o.lib_),
      handle_(std::exchange(o.handle_, 0)),
      open_(std::exchange(o.open_, false)),
      db_name_(std::move(o.db_name_)) {}

Database& Database::operator=(Database&& o) noexcept {
  if (this != &o) {
    (void)close();
    lib_ = o.lib_;
    handle_ = std::exchange(o.handle_, 0);
    open_ = std::exchange(o.open_, false);
    db_name_ = std::move(o.db_name_);
  }
  return *this;
}

Database::~Database() { (void)close(); }

Status Database::close() {
  if (!open_) return Ok{};
  open_ = false;
  if (detail::close_handle(lib_, handle_) < 0) return detail::last_error_as_error();
  return Ok{};
}

Result<int64_t> Database::query_into(std::span<const uint8_t> req, std::span<uint8_t> buf) const {
  const int64_t n = detail::query_into(lib_, handle_, req.data(), req.size(), buf.data(), buf.size());
  if (n < 0) return detail::last_error_as_error();
  return n;
}

Status Database::exec_sql(std::string_view db, std::string_view sql) const {
  // An empty string_view may have a null data(): pass "" so that an empty
  // name or text gets the DAL's own answer, not DAL_E_NULL.
  const char* d = db.data() != nullptr ? db.data() : "";
  const char* s = sql.data() != nullptr ? sql.data() : "";
  if (detail::exec_sql(lib_, handle_, d, db.size(), s, sql.size()) < 0) return detail::last_error_as_error();
  return Ok{};
}

Result<int64_t> Database::take_pending(std::span<uint8_t> buf) const {
  const int64_t n = detail::take_pending(lib_, buf.data(), buf.size());
  if (n < 0) return detail::last_error_as_error();
  return n;
}

Result<size_t> Database::query_to(std::span<const uint8_t> req, Bytes& out) const {
  const int64_t n = detail::query_to(lib_, handle_, req.data(), req.size(), out);
  if (n < 0) return detail::last_error_as_error();
  return static_cast<size_t>(n);
}

Result<DalBuffer> Database::query(std::span<const uint8_t> req) const {
  size_t n = 0;
  void* p = detail::query_alloc(lib_, handle_, req.data(), req.size(), &n);
  if (p == nullptr) return detail::last_error_as_error();
  return DalBuffer(p, n);
}

namespace {

// Per-thread scratch for run(): the encoded request and the response.  A
// response above the fixed buffer goes to `big` (query_or_take), which is
// released again if it grew beyond kKeepBig.
constexpr size_t kRunBuffer = 64 * 1024;
constexpr size_t kKeepBig = 4 * 1024 * 1024;
struct RunScratch {
  Encoder req;
  std::vector<uint8_t> resp = std::vector<uint8_t>(kRunBuffer);
  Bytes big;
};
RunScratch& run_scratch() {
  thread_local RunScratch s;
  return s;
}

}  // namespace

Result<Response> Database::run(const Query& q) const {
  RunScratch& s = run_scratch();
  s.req.clear();
  if (auto st = q.encode(s.req); !st) return st.error();
  void* where = nullptr;
  const int64_t n = detail::query_or_take(lib_, handle_, s.req.data(), s.req.size(), s.resp.data(), s.resp.size(),
                                          detail::grow_into(s.big), &where);
  if (n < 0) return detail::last_error_as_error();
  auto r = decode_response({static_cast<const uint8_t*>(where), static_cast<size_t>(n)});
  if (s.big.capacity() > kKeepBig) Bytes().swap(s.big);
  return r;
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
