// Issue 10, concurrency: 8 threads on one handle with mixed Find, Insert,
// Set, Delete and Tx requests (one Tx in every few rolled back by a
// constraint error) and invalid requests.  Each thread owns the rows whose
// `owner` is its number and keeps its own model of them, so every answer
// can be checked exactly: the request id echoed, rows affected, insert ids,
// counts and values.  No caller may ever see "database is locked", the
// final row count is exact, and after dal_close the process holds no live
// statement, buffer or connection.
#include <dal.h>
#include <gtest/gtest.h>

#include <sqlite3.h>

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "abi_helpers.h"

namespace {

using namespace dalabi;

constexpr int kThreads = 8;
constexpr int kRounds = 300;  // each round issues 8 requests

// One command {method, args}; args written by fn.
void command(Packer& pk, const char* method, const std::function<void(Packer&)>& args) {
  pk.pack_map(2);
  pk.pack("method");
  pk.pack(method);
  pk.pack("args");
  args(pk);
}

void in_t(Packer& pk) {
  command(pk, "In", [](Packer& p) {
    p.pack_array(1);
    p.pack("t");
  });
}

Bytes envelope(uint64_t id, int ncmds, const std::function<void(Packer&)>& cmds) {
  return encode([&](Packer& pk) {
    pk.pack_map(3);
    pk.pack("id");
    pk.pack(id);
    pk.pack("db");
    pk.pack("c.db");
    pk.pack("commands");
    pk.pack_array(ncmds);
    cmds(pk);
  });
}

void insert_row(Packer& pk, int64_t id, int owner, int64_t v) {
  command(pk, "Insert", [&](Packer& p) {
    p.pack_array(1);
    p.pack_map(3);
    p.pack("id");
    p.pack(id);
    p.pack("owner");
    p.pack(owner);
    p.pack("v");
    p.pack(v);
  });
}

// What one thread saw go wrong; the first message is kept for the report.
struct Failures {
  std::atomic<int> count{0};
  std::mutex mu;
  std::string first;
  void add(const std::string& what) {
    if (count++ == 0) {
      std::lock_guard<std::mutex> lock(mu);
      first = what;
    }
  }
};

class Worker {
 public:
  Worker(int64_t handle, int owner, Failures& f) : h_(handle), owner_(owner), f_(f) {}

  void run() {
    for (int round = 0; round < kRounds && f_.count.load() == 0; ++round) {
      insert();
      count_mine();
      set_one(round);
      tx_commit();
      tx_rolled_back();
      delete_one();
      invalid_request();
      missing_table();
    }
    count_mine();
  }
  size_t rows() const { return mine_.size(); }

 private:
  uint64_t next_request_id() { return (static_cast<uint64_t>(owner_) << 32) | ++seq_; }
  int64_t next_row_id() { return int64_t{owner_} * 1000000 + ++row_seq_; }

  // Runs req, alternating ownership modes (and a too-small buffer now and
  // then, so the pending path runs concurrently too); checks the echoed id.
  bool call(const Bytes& req, uint64_t id, Decoded* out, const char* what) {
    Bytes resp;
    int64_t n;
    if (++calls_ % 3 == 0) {
      void* p = nullptr;
      n = dal_query(h_, req.data(), req.size(), &p);
      if (n >= 0) {
        resp.assign(static_cast<uint8_t*>(p), static_cast<uint8_t*>(p) + n);
        if (dal_free(p) != DAL_OK) return fail(what, "dal_free failed");
      }
    } else {
      std::array<uint8_t, 24> small{};  // fits exec results, not most rows responses
      n = dal_query_into(h_, req.data(), req.size(), small.data(), small.size());
      if (n > static_cast<int64_t>(small.size())) {
        resp.resize(static_cast<size_t>(n));
        if (dal_take_pending(resp.data(), resp.size()) != n) return fail(what, "dal_take_pending lost the response");
      } else if (n >= 0) {
        resp.assign(small.begin(), small.begin() + n);
      }
    }
    if (n < 0)
      return fail(what,
                  std::string("call failed: ") + dal_code_name(static_cast<int32_t>(n)) + ": " + dal_last_error());
    *out = decode(resp.data(), resp.size());
    if (out->at("i").as<uint64_t>() != id) return fail(what, "answer carries another request's id");
    if (out->has("e") && out->at("e").as<std::string>().find("locked") != std::string::npos)
      return fail(what, "database is locked: " + out->at("e").as<std::string>());
    return true;
  }
  bool fail(const char* what, const std::string& why) {
    f_.add("thread " + std::to_string(owner_) + ", " + what + ": " + why);
    return false;
  }
  bool expect_exec(const Decoded& d, int64_t ra, const char* what) {
    if (d.has("e")) return fail(what, "error " + d.at("e").as<std::string>());
    if (d.at("ra").as<int64_t>() != ra) return fail(what, "ra " + std::to_string(d.at("ra").as<int64_t>()));
    return true;
  }

  void insert() {
    int64_t row = next_row_id(), v = row % 97;
    uint64_t id = next_request_id();
    Decoded d;
    if (!call(envelope(id, 2,
                       [&](Packer& pk) {
                         in_t(pk);
                         insert_row(pk, row, owner_, v);
                       }),
              id, &d, "Insert"))
      return;
    if (!expect_exec(d, 1, "Insert")) return;
    if (d.at("li").as<int64_t>() != row) return (void)fail("Insert", "li is not the inserted id");
    mine_[row] = v;
  }

  // Find {owner} with Fields [id, v] sorted by id: exactly this thread's rows.
  void count_mine() {
    uint64_t id = next_request_id();
    Decoded d;
    Bytes req = envelope(id, 4, [&](Packer& pk) {
      in_t(pk);
      command(pk, "Find", [&](Packer& p) {
        p.pack_array(1);
        p.pack_map(1);
        p.pack("owner");
        p.pack(owner_);
      });
      command(pk, "Fields", [](Packer& p) {
        p.pack_array(2);
        p.pack("id");
        p.pack("v");
      });
      command(pk, "Sort", [](Packer& p) {
        p.pack_array(1);
        p.pack_map(1);
        p.pack("id");
        p.pack(1);
      });
    });
    if (!call(req, id, &d, "Find")) return;
    if (d.has("e")) return (void)fail("Find", d.at("e").as<std::string>());
    std::map<int64_t, int64_t> seen;
    const auto& rows = d.at("r").via.array;
    for (uint32_t i = 0; i < rows.size; ++i)
      seen[rows.ptr[i].via.array.ptr[0].as<int64_t>()] = rows.ptr[i].via.array.ptr[1].as<int64_t>();
    if (seen != mine_)
      fail("Find", "rows differ from what this thread wrote (" + std::to_string(seen.size()) + " vs " +
                       std::to_string(mine_.size()) + ")");
  }

  void set_one(int round) {
    if (mine_.empty()) return;
    int64_t row = mine_.begin()->first;
    uint64_t id = next_request_id();
    Decoded d;
    Bytes req = envelope(id, 3, [&](Packer& pk) {
      in_t(pk);
      command(pk, "Find", [&](Packer& p) {
        p.pack_array(1);
        p.pack_map(1);
        p.pack("id");
        p.pack(row);
      });
      command(pk, "Set", [&](Packer& p) {
        p.pack_array(1);
        p.pack_map(1);
        p.pack("v");
        p.pack(round);
      });
    });
    if (call(req, id, &d, "Set") && expect_exec(d, 1, "Set")) mine_[row] = round;
  }

  void delete_one() {
    if (mine_.size() < 3) return;
    int64_t row = mine_.rbegin()->first;
    uint64_t id = next_request_id();
    Decoded d;
    Bytes req = envelope(id, 3, [&](Packer& pk) {
      in_t(pk);
      command(pk, "Find", [&](Packer& p) {
        p.pack_array(1);
        p.pack_map(1);
        p.pack("id");
        p.pack(row);
      });
      command(pk, "Delete", [](Packer& p) { p.pack_array(0); });
    });
    if (call(req, id, &d, "Delete") && expect_exec(d, 1, "Delete")) mine_.erase(row);
  }

  // Tx of two inserts: both or neither.
  Bytes tx(uint64_t id, int64_t a, int64_t b) {
    return envelope(id, 1, [&](Packer& pk) {
      command(pk, "Tx", [&](Packer& p) {
        p.pack_array(2);
        for (int64_t row : {a, b}) {
          p.pack_array(2);
          in_t(p);
          insert_row(p, row, owner_, 7);
        }
      });
    });
  }

  void tx_commit() {
    int64_t a = next_row_id(), b = next_row_id();
    uint64_t id = next_request_id();
    Decoded d;
    if (!call(tx(id, a, b), id, &d, "Tx") || !expect_exec(d, 2, "Tx")) return;
    mine_[a] = 7;
    mine_[b] = 7;
  }

  // The second insert reuses an id this thread owns: UNIQUE fails, and the
  // first insert must be rolled back with it.
  void tx_rolled_back() {
    if (mine_.empty()) return;
    int64_t fresh = next_row_id(), dup = mine_.begin()->first;
    uint64_t id = next_request_id();
    Decoded d;
    if (!call(tx(id, fresh, dup), id, &d, "Tx rollback")) return;
    if (!d.has("e") || d.at("e").as<std::string>().find("UNIQUE") == std::string::npos)
      return (void)fail("Tx rollback", "want a UNIQUE constraint error");
    if (d.at("ra").as<int64_t>() != 0) fail("Tx rollback", "ra is not 0");
    // count_mine() in the next round proves `fresh` is absent.
  }

  void invalid_request() {
    uint64_t id = next_request_id();
    Bytes req = envelope(id, 2, [&](Packer& pk) {
      in_t(pk);
      command(pk, "Fnd", [](Packer& p) { p.pack_array(0); });
    });
    void* p = nullptr;
    if (int64_t n = dal_query(h_, req.data(), req.size(), &p); n != DAL_E_REQUEST)
      fail("invalid request", "got " + std::to_string(n) + ", want DAL_E_REQUEST");
    else if (std::string(dal_last_error()).find("Fnd") == std::string::npos)
      fail("invalid request", std::string("message does not name the method: ") + dal_last_error());
  }

  void missing_table() {
    uint64_t id = next_request_id();
    Decoded d;
    Bytes req = envelope(id, 1, [](Packer& pk) {
      command(pk, "In", [](Packer& p) {
        p.pack_array(1);
        p.pack("nosuch");
      });
    });
    if (call(req, id, &d, "missing table") &&
        (!d.has("e") || d.at("e").as<std::string>().find("no such table") == std::string::npos))
      fail("missing table", "want SQLite's error in the response");
  }

  int64_t h_;
  int owner_;
  Failures& f_;
  uint32_t seq_ = 0;
  int64_t row_seq_ = 0;
  uint64_t calls_ = 0;
  std::map<int64_t, int64_t> mine_;  // row id -> v, as this thread wrote them
};

TEST(DalConcurrency, EightThreadsMixedRequestsOnOneHandle) {
  dalkit::TempDir dir("dal-concurrency");
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(dir.file("c.db").c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t (id INTEGER PRIMARY KEY, owner INTEGER NOT NULL, v INTEGER)", nullptr,
                           nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  int64_t before[DAL_STAT_COUNT];
  ASSERT_EQ(dal_stats(0, before, DAL_STAT_COUNT), DAL_STAT_COUNT);
  int64_t h = dal_open(dir.path().c_str(), "max_readers=4");
  ASSERT_GT(h, 0) << dal_last_error();

  Failures failures;
  std::vector<std::unique_ptr<Worker>> workers;
  for (int t = 0; t < kThreads; ++t) workers.push_back(std::make_unique<Worker>(h, t + 1, failures));
  std::vector<std::thread> threads;
  for (auto& w : workers) threads.emplace_back([&w] { w->run(); });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.count.load(), 0) << "first failure: " << failures.first;

  size_t expected = 0;
  for (auto& w : workers) expected += w->rows();
  Bytes out;
  Bytes count = encode([](Packer& pk) {
    pk.pack_map(3);
    pk.pack("id");
    pk.pack(1);
    pk.pack("db");
    pk.pack("c.db");
    pk.pack("commands");
    pk.pack_array(2);
    in_t(pk);
    command(pk, "Fields", [](Packer& p) {
      p.pack_array(1);
      p.pack("count(*)");
    });
  });
  void* p = nullptr;
  int64_t n = dal_query(h, count.data(), count.size(), &p);
  ASSERT_GT(n, 0) << dal_last_error();
  EXPECT_EQ(decode(p, static_cast<size_t>(n)).first_cell(), static_cast<int64_t>(expected));
  EXPECT_EQ(dal_free(p), DAL_OK);
  EXPECT_GT(expected, size_t{kThreads * kRounds});

  ASSERT_EQ(dal_close(h), DAL_OK);
  int64_t after[DAL_STAT_COUNT];
  ASSERT_EQ(dal_stats(0, after, DAL_STAT_COUNT), DAL_STAT_COUNT);
  // Nothing is still alive: no statement, no buffer (pending responses
  // included); connections and handles as before this handle was opened.
  EXPECT_EQ(after[DAL_STAT_STATEMENTS_LIVE], 0);
  EXPECT_EQ(after[DAL_STAT_BUFFERS_LIVE], 0);
  EXPECT_EQ(after[DAL_STAT_BUFFER_BYTES_LIVE], 0);
  EXPECT_EQ(after[DAL_STAT_CONNECTIONS_OPEN], before[DAL_STAT_CONNECTIONS_OPEN]);
  EXPECT_EQ(after[DAL_STAT_HANDLES_LIVE], before[DAL_STAT_HANDLES_LIVE]);
}

}  // namespace
