#include "sqlite_floor.hpp"

#include <cstring>
#include <stdexcept>

namespace floorbench {

namespace {

// The DAL's settings (native/internal/engine/conn.go, options.go defaults).
constexpr int kBusyTimeoutMs = 5000;

sqlite3* open_like_dal(const std::string& path, bool reader) {
  sqlite3* db = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close_v2(db);
    throw std::runtime_error("sqlite3_open_v2 " + path + ": " + msg);
  }
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, nullptr);
  std::string pragmas = "PRAGMA synchronous=normal; PRAGMA journal_mode=WAL;";
  if (reader) pragmas += " PRAGMA query_only=1;";
  char* err = nullptr;
  if (sqlite3_exec(db, pragmas.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "?";
    sqlite3_free(err);
    sqlite3_close_v2(db);
    throw std::runtime_error("configuring " + path + ": " + msg);
  }
  return db;
}

}  // namespace

// One connection and its statements, used by one thread at a time.
class FloorConnection {
 public:
  FloorConnection(const std::string& path, bool reader, size_t nsql) : db(open_like_dal(path, reader)), cache_(nsql) {
    if (!reader) {
      begin = prepare_or_throw("BEGIN IMMEDIATE");
      commit = prepare_or_throw("COMMIT");
      rollback = prepare_or_throw("ROLLBACK");
    }
  }
  ~FloorConnection() {
    for (sqlite3_stmt* s : cache_) sqlite3_finalize(s);
    for (sqlite3_stmt* s : {begin, commit, rollback}) sqlite3_finalize(s);
    sqlite3_close_v2(db);
  }

  // The statement for sql index i, prepared on first use and kept; nullptr
  // if it does not prepare (sqlite3_errmsg(db) says why).
  sqlite3_stmt* statement(int i, const std::string& sql) {
    if (sqlite3_stmt* s = cache_[i]) return s;
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &s, nullptr) !=
        SQLITE_OK)
      return nullptr;
    cache_[i] = s;
    return s;
  }

  // Runs BEGIN/COMMIT/ROLLBACK (prepared once, like every other statement).
  int control(sqlite3_stmt* s) {
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
  }

  sqlite3* db;
  sqlite3_stmt* begin = nullptr;
  sqlite3_stmt* commit = nullptr;
  sqlite3_stmt* rollback = nullptr;
  std::string scratch;  // the names and text values of one answer, copied out

 private:
  sqlite3_stmt* prepare_or_throw(const char* sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("prepare ") + sql + ": " + sqlite3_errmsg(db));
    return s;
  }
  std::vector<sqlite3_stmt*> cache_;
};

namespace {

// Binds a statement's parameters. SQLITE_STATIC: the values outlive the
// statement's use (it is reset before the query ends), which is true of the
// DAL's request buffer too.
int bind(sqlite3_stmt* s, const std::vector<Value>& args) {
  int rc = SQLITE_OK;
  for (int i = 0; i < static_cast<int>(args.size()) && rc == SQLITE_OK; ++i) {
    const Value& v = args[i];
    switch (v.kind) {
      case Value::Kind::Nil: rc = sqlite3_bind_null(s, i + 1); break;
      case Value::Kind::Int: rc = sqlite3_bind_int64(s, i + 1, v.i); break;
      case Value::Kind::Real: rc = sqlite3_bind_double(s, i + 1, v.r); break;
      case Value::Kind::Text:
        rc = sqlite3_bind_text(s, i + 1, v.s.data(), static_cast<int>(v.s.size()), SQLITE_STATIC);
        break;
    }
  }
  return rc;
}

bool wrong(std::string* why, std::string what) {
  *why = std::move(what);
  return false;
}

// The check of an answer that is an error message from SQLite.
bool check_error(const Query& q, const char* msg, std::string* why) {
  if (q.answer.kind == Answer::Kind::Error && q.answer.error == msg) return true;
  return wrong(why,
               std::string("SQLite said \"") + msg + "\"" +
                   (q.answer.kind == Answer::Kind::Error ? ", want \"" + q.answer.error + "\"" : ", want an answer"));
}

}  // namespace

void create_database(const std::string& path, const std::string& schema) {
  FloorConnection c(path, false, 0);
  char* err = nullptr;
  if (!schema.empty() && sqlite3_exec(c.db, schema.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "?";
    sqlite3_free(err);
    throw std::runtime_error("schema on " + path + ": " + msg);
  }
}

SqliteFloor::SqliteFloor(const std::string& path, const Workload& w, int threads) : w_(w) {
  for (const std::string& sql : w.sql)
    kinds_.push_back(sql.starts_with("SELECT") ? Kind::Select : sql.starts_with("INSERT") ? Kind::Insert : Kind::Other);
  writer_ = std::make_unique<FloorConnection>(path, false, w.sql.size());
  for (int t = 0; t < threads; ++t) readers_.push_back(std::make_unique<FloorConnection>(path, true, w.sql.size()));
}

SqliteFloor::~SqliteFloor() = default;

bool SqliteFloor::run(int t, const Query& q, std::string* why) {
  if (!q.tx && q.statements.size() == 1 && kinds_[q.statements[0].sql] == Kind::Select)
    return select(*readers_[t], q, why);
  std::lock_guard lock(write_lock_);
  return writes(q, why);
}

bool SqliteFloor::select(FloorConnection& c, const Query& q, std::string* why) {
  const Statement& st = q.statements[0];
  sqlite3_stmt* s = c.statement(st.sql, w_.sql[st.sql]);
  if (!s) return check_error(q, sqlite3_errmsg(c.db), why);
  if (bind(s, st.args) != SQLITE_OK) {
    sqlite3_reset(s);
    return wrong(why, std::string("bind: ") + sqlite3_errmsg(c.db));
  }
  c.scratch.clear();
  const int ncol = sqlite3_column_count(s);
  for (int i = 0; i < ncol; ++i) c.scratch += sqlite3_column_name(s, i);
  uint64_t numbers = 0;
  size_t rows = 0;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    ++rows;
    for (int i = 0; i < ncol; ++i) {
      switch (sqlite3_column_type(s, i)) {
        case SQLITE_INTEGER: numbers = fold(numbers, static_cast<uint64_t>(sqlite3_column_int64(s, i))); break;
        case SQLITE_FLOAT: {
          double d = sqlite3_column_double(s, i);
          uint64_t bits;
          std::memcpy(&bits, &d, sizeof bits);
          numbers = fold(numbers, bits);
          break;
        }
        case SQLITE_TEXT: {
          auto p = reinterpret_cast<const char*>(sqlite3_column_text(s, i));
          c.scratch.append(p, static_cast<size_t>(sqlite3_column_bytes(s, i)));
          break;
        }
        case SQLITE_BLOB: {
          auto p = static_cast<const char*>(sqlite3_column_blob(s, i));
          c.scratch.append(p, static_cast<size_t>(sqlite3_column_bytes(s, i)));
          break;
        }
        default: break;  // NULL
      }
    }
  }
  if (rc != SQLITE_DONE) {
    bool ok = check_error(q, sqlite3_errmsg(c.db), why);
    sqlite3_reset(s);
    return ok;
  }
  sqlite3_reset(s);  // ends the read transaction, as the DAL's release does
  const Answer& a = q.answer;
  if (a.kind != Answer::Kind::Rows) return wrong(why, "rows, want no rows");
  const RowsDigest& d = q.digest;
  if (rows != d.rows || ncol != static_cast<int>(d.columns) || numbers != d.numbers || c.scratch != d.text)
    return wrong(why, std::to_string(rows) + " rows of " + std::to_string(ncol) + " columns, want " +
                          std::to_string(d.rows) + " of " + std::to_string(d.columns) +
                          (rows == d.rows ? " (other values)" : ""));
  return true;
}

bool SqliteFloor::writes(const Query& q, std::string* why) {
  FloorConnection& c = *writer_;
  if (q.tx && c.control(c.begin) != SQLITE_OK) return check_error(q, sqlite3_errmsg(c.db), why);
  int64_t total = 0, last = 0;
  for (const Statement& st : q.statements) {
    sqlite3_stmt* s = c.statement(st.sql, w_.sql[st.sql]);
    int rc = s ? bind(s, st.args) : SQLITE_ERROR;
    if (rc == SQLITE_OK) {
      while ((rc = sqlite3_step(s)) == SQLITE_ROW) {}
    }
    if (rc != SQLITE_DONE) {
      std::string msg = sqlite3_errmsg(c.db);  // before reset or rollback replace it
      if (s) sqlite3_reset(s);
      if (q.tx && !sqlite3_get_autocommit(c.db)) c.control(c.rollback);
      return check_error(q, msg.c_str(), why);
    }
    sqlite3_reset(s);
    const int64_t ra = sqlite3_changes64(c.db);
    total += ra;
    if (kinds_[st.sql] == Kind::Insert && ra > 0) last = sqlite3_last_insert_rowid(c.db);
  }
  if (q.tx && c.control(c.commit) != SQLITE_OK) {
    std::string msg = sqlite3_errmsg(c.db);
    if (!sqlite3_get_autocommit(c.db)) c.control(c.rollback);
    return check_error(q, msg.c_str(), why);
  }
  const Answer& a = q.answer;
  if (a.kind != Answer::Kind::Exec || a.ra != total || a.li != last)
    return wrong(why,
                 "ra " + std::to_string(total) + " li " + std::to_string(last) +
                     (a.kind == Answer::Kind::Exec ? ", want ra " + std::to_string(a.ra) + " li " + std::to_string(a.li)
                                                   : ", want " + (a.error.empty() ? std::string("rows") : a.error)));
  return true;
}

}  // namespace floorbench
