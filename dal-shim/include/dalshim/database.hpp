// dalshim/database.hpp -- RAII over one DAL handle, and the C++ API's raw
// entry points.
//
// The C ABI (dalshim.h) and this class are two faces of one implementation
// (src/operations.hpp): open and close, the accounting behind
// dalshim_stats(), the shim's planted leak, the mode (a) buffer registry
// and the "response too small -> take pending" flow exist once, so the same
// call gives the same result, code, message and counter deltas through
// either (tests/shim/equivalence_test.cpp).  Every failure is recorded as
// the thread's last error (dalshim_last_error()) as well as returned.
//
// RAW ENTRY POINTS (request = MessagePack bytes, docs/protocol.md)
//
//   query_into(req, buf)   mode (b), dalshim_query_into: n <= buf.size()
//                          -> the response is in buf[0..n); n > buf.size()
//                          -> nothing written, the request WAS executed and
//                          its response is pending for this thread: fetch it
//                          with take_pending() into >= n bytes.  Never
//                          re-send the request to retry.
//   take_pending(buf)      dalshim_take_pending.
//   query_to(req, out)     mode (b) into a Bytes vector, the too-small case
//                          handled (take_pending, never a re-send): out is
//                          first used at its whole capacity (at least 4096
//                          bytes, never zero-filled), then resized to
//                          exactly the response.
//   query(req)             mode (a), dalshim_query: the shim allocates the
//                          response (malloc, registered; counted in
//                          DALSHIM_STAT_BUFFERS_LIVE) and DalBuffer releases
//                          it.  Same meaning of mode (a) as the C ABI.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dalshim/bytes.hpp"
#include "dalshim/error.hpp"
#include "dalshim/library.hpp"
#include "dalshim/query.hpp"
#include "dalshim/response.hpp"

namespace dalshim {

// A mode (a) response: the buffer dalshim_query() would return, released
// (dalshim_free) when this object dies.  Movable, not copyable.
class DalBuffer {
 public:
  DalBuffer() = default;
  DalBuffer(DalBuffer&& o) noexcept : p_(o.p_), n_(o.n_) {
    o.p_ = nullptr;
    o.n_ = 0;
  }
  DalBuffer& operator=(DalBuffer&& o) noexcept;
  ~DalBuffer() { reset(); }
  DalBuffer(const DalBuffer&) = delete;
  DalBuffer& operator=(const DalBuffer&) = delete;

  std::span<const uint8_t> span() const noexcept { return {static_cast<const uint8_t*>(p_), n_}; }
  const uint8_t* data() const noexcept { return static_cast<const uint8_t*>(p_); }
  size_t size() const noexcept { return n_; }
  // Release now (idempotent).
  void reset() noexcept;

 private:
  friend class Database;
  DalBuffer(void* p, size_t n) noexcept : p_(p), n_(n) {}
  void* p_ = nullptr;
  size_t n_ = 0;
};

class Database {
 public:
  // Open a handle on data_dir (must exist).  options: dal.h's, plus the
  // shim's plant_leak=shim_malloc (docs/shim.md), exactly as dalshim_open
  // takes them.  lib: nullptr = Library::default_instance().
  static Result<Database> open(const std::string& data_dir, const std::string& options = {}, Library* lib = nullptr);

  Database() = default;
  Database(Database&& o) noexcept;
  Database& operator=(Database&& o) noexcept;
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Close the handle (idempotent: closing a closed Database is Ok).  Calls
  // on a closed Database fail with DALSHIM_E_CLOSED, as on a closed handle.
  Status close();
  bool is_open() const noexcept { return open_; }
  // The DAL handle (still the closed one after close(); 0 if never opened).
  int64_t handle() const noexcept { return handle_; }
  Library* library() const noexcept { return lib_; }

  // Default database file name for queries built from this object
  // ("database.sqlite" unless changed).
  void use(std::string db_name) { db_name_ = std::move(db_name); }
  const std::string& db_name() const noexcept { return db_name_; }

  // Builder entry points.  The returned Query refers to this Database (for
  // Query::run) and must not outlive it or survive a move of it.
  Query In(std::string table) const { return Query(db_name_, this).In(std::move(table)); }
  Query In(std::string table, std::string alias) const {
    return Query(db_name_, this).In(std::move(table), std::move(alias));
  }
  Query Tx(const std::vector<Query>& statements) const { return Query(db_name_, this).Tx(statements); }

  // Encode (thread-local Encoder), execute (mode (b), thread-local buffer)
  // and decode (decode_response).
  Result<Response> run(const Query& q) const;
  Result<Rows> rows(const Query& q) const;
  Result<ExecResult> exec(const Query& q) const;

  // Administrative SQL text (schemas, migrations) on the writer connection
  // of database db (default: db_name()): dalshim_exec, sqlite3_exec()
  // semantics.  Never pass user input.  Named exec_sql, not exec, because
  // exec(Query) above runs a protocol write.
  Status exec_sql(std::string_view sql) const { return exec_sql(db_name_, sql); }
  Status exec_sql(std::string_view db, std::string_view sql) const;

  // The raw entry points (see the top of this file).
  Result<int64_t> query_into(std::span<const uint8_t> req, std::span<uint8_t> buf) const;
  Result<int64_t> take_pending(std::span<uint8_t> buf) const;
  Result<size_t> query_to(std::span<const uint8_t> req, Bytes& out) const;
  Result<DalBuffer> query(std::span<const uint8_t> req) const;

 private:
  Database(Library* lib, int64_t h) : lib_(lib), handle_(h), open_(true) {}
  Library* lib_ = nullptr;
  int64_t handle_ = 0;
  bool open_ = false;
  std::string db_name_ = "database.sqlite";
};

}  // namespace dalshim
