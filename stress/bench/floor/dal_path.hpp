// The DAL side of the benchmark: dal_query_into on one handle (dal.h
// directly, no shim), shared by every thread as a real caller would, each
// answer checked against the expected bytes.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "workload.hpp"

namespace floorbench {

class DalPath {
 public:
  // Opens a handle with the default options on data directory dir, and
  // lets the DAL configure SQLite: construct it before any sqlite3 call.
  explicit DalPath(const std::string& dir);
  ~DalPath();
  DalPath(const DalPath&) = delete;
  DalPath& operator=(const DalPath&) = delete;

  // Sends q.request into buf and checks the answer: one length compare and
  // one memcmp, or a decoded compare when the bytes differ. False, with
  // *why, for a wrong answer or a failed call.
  bool run(const Query& q, std::vector<uint8_t>& buf, std::string* why);

  // Right answers whose bytes differed from the expected encoding (each
  // cost a decode inside the timed loop; see msgpack_writer.hpp).
  long reencoded() const { return reencoded_.load(); }

 private:
  int64_t handle_ = 0;
  std::atomic<long> reencoded_{0};
};

}  // namespace floorbench
