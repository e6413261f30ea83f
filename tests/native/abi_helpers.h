// Helpers shared by the GoogleTests of the DAL's C ABI: MessagePack request
// builders, a response decoder, and the fixture that opens a handle on a
// fresh data directory.
#pragma once

#include <dal.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <msgpack.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "temp_dir.hpp"

namespace dalabi {

using Bytes = std::vector<uint8_t>;
using Packer = msgpack::packer<msgpack::sbuffer>;

template <class Fn>
Bytes encode(Fn&& fn) {
  msgpack::sbuffer buf;
  Packer pk(buf);
  fn(pk);
  return Bytes(buf.data(), buf.data() + buf.size());
}

// {id, db, commands:[{method:"In", args:[table]}, <extra command>]}
inline Bytes request_with(const std::string& db, const std::string& method, const std::function<void(Packer&)>& args) {
  return encode([&](Packer& pk) {
    pk.pack_map(3);
    pk.pack("id");
    pk.pack(1);
    pk.pack("db");
    pk.pack(db);
    pk.pack("commands");
    pk.pack_array(2);
    pk.pack_map(2);
    pk.pack("method");
    pk.pack("In");
    pk.pack("args");
    pk.pack_array(1);
    pk.pack("t");
    pk.pack_map(2);
    pk.pack("method");
    pk.pack(method);
    pk.pack("args");
    args(pk);
  });
}

// A decoded response map; keeps the msgpack zone alive as long as the map's
// objects point into it.
struct Decoded {
  msgpack::object_handle handle;
  std::map<std::string, msgpack::object> map;
  const msgpack::object& at(const std::string& key) const { return map.at(key); }
  bool has(const std::string& key) const { return map.count(key) != 0; }
  // The first column of the first row of a rows response.
  int64_t first_cell() const { return map.at("r").via.array.ptr[0].via.array.ptr[0].as<int64_t>(); }
};

inline Decoded decode(const void* p, size_t n) {
  Decoded d{msgpack::unpack(static_cast<const char*>(p), n), {}};
  d.map = d.handle.get().as<std::map<std::string, msgpack::object>>();
  return d;
}

class DalAbi : public ::testing::Test {
 protected:
  void SetUp() override {
    handle_ = dal_open(dir_.path().c_str(), nullptr);
    ASSERT_GT(handle_, 0) << dal_last_error();
  }
  void TearDown() override {
    if (handle_ > 0) {
      EXPECT_EQ(dal_close(handle_), DAL_OK);
    }
  }
  // Runs a query in mode (a) and returns the response bytes, or the code.
  int64_t query(const Bytes& req, Bytes* out) {
    void* resp = nullptr;
    int64_t n = dal_query(handle_, req.data(), req.size(), &resp);
    if (n >= 0) {
      out->assign(static_cast<uint8_t*>(resp), static_cast<uint8_t*>(resp) + n);
      EXPECT_EQ(dal_free(resp), DAL_OK);
    } else {
      EXPECT_EQ(resp, nullptr);
    }
    return n;
  }
  // count(*) of table t in db, through the handle.
  int64_t count_rows(const std::string& db) {
    Bytes out;
    Bytes req = request_with(db, "Fields", [](Packer& pk) {
      pk.pack_array(1);
      pk.pack("count(*)");
    });
    EXPECT_GT(query(req, &out), 0) << dal_last_error();
    return out.empty() ? -1 : decode(out.data(), out.size()).first_cell();
  }
  void exec_sql(const std::string& db, const char* sql) {
    sqlite3* s = nullptr;
    ASSERT_EQ(sqlite3_open(dir_.file(db).c_str(), &s), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(s, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(s);
    sqlite3_close(s);
  }

  dalkit::TempDir dir_{"dal-abi"};
  int64_t handle_ = 0;
};

}  // namespace dalabi
