// dalshim/database.hpp -- RAII over one DAL handle.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "dalshim/error.hpp"
#include "dalshim/library.hpp"
#include "dalshim/query.hpp"
#include "dalshim/response.hpp"

namespace dalshim {

// A response allocated by the DAL (ownership mode (a) of dal.h), released
// with dal_free() when this object dies.  Movable, not copyable.
class DalBuffer {
 public:
  DalBuffer() = default;
  DalBuffer(Library* lib, void* p, size_t n) noexcept : lib_(lib), p_(p), n_(n) {}
  DalBuffer(DalBuffer&& o) noexcept : lib_(o.lib_), p_(o.p_), n_(o.n_) { o.p_ = nullptr; o.n_ = 0; }
  DalBuffer& operator=(DalBuffer&& o) noexcept;
  ~DalBuffer() { reset(); }
  DalBuffer(const DalBuffer&) = delete;
  DalBuffer& operator=(const DalBuffer&) = delete;

  std::span<const uint8_t> span() const noexcept { return {static_cast<const uint8_t*>(p_), n_}; }
  const uint8_t* data() const noexcept { return static_cast<const uint8_t*>(p_); }
  size_t size() const noexcept { return n_; }
  void reset() noexcept;

 private:
  Library* lib_ = nullptr;
  void* p_ = nullptr;
  size_t n_ = 0;
};

class Database {
 public:
  // Open a handle on data_dir (must exist).  options: see dal.h.  lib:
  // nullptr = Library::default_instance().
  static Result<Database> open(const std::string& data_dir, const std::string& options = {},
                               Library* lib = nullptr);

  Database() = default;
  Database(Database&& o) noexcept;
  Database& operator=(Database&& o) noexcept;
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Close the handle (idempotent: closing a closed Database is Ok).
  Status close();
  bool is_open() const noexcept { return handle_ > 0; }
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

  // Encode, execute (mode (b) into a thread-local buffer) and decode.
  Result<Response> run(const Query& q) const;
  Result<Rows> rows(const Query& q) const;
  Result<ExecResult> exec(const Query& q) const;

  // Raw MessagePack, ownership mode (a): the DAL allocates, DalBuffer frees.
  Result<DalBuffer> query(std::span<const uint8_t> req) const;
  // Raw MessagePack, ownership mode (b): see dal_query_into.  Returns n; if
  // n > buf.size() the response is pending for this thread: take_pending().
  Result<int64_t> query_into(std::span<const uint8_t> req, std::span<uint8_t> buf) const;
  Result<int64_t> take_pending(std::span<uint8_t> buf) const;
  // Raw request -> response bytes copied into out (mode (b), handles the
  // too-small case).
  Status query_bytes(std::span<const uint8_t> req, std::vector<uint8_t>& out) const;
  // Raw request -> decoded response.
  Result<Response> run_raw(std::span<const uint8_t> req) const;

 private:
  Database(Library* lib, int64_t h) : lib_(lib), handle_(h) {}
  Library* lib_ = nullptr;
  int64_t handle_ = 0;
  std::string db_name_ = "database.sqlite";
};

}  // namespace dalshim
