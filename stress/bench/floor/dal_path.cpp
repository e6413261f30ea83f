#include "dal_path.hpp"

#include <dal.h>

#include <cstring>
#include <stdexcept>

#include "answer_check.hpp"

namespace floorbench {

DalPath::DalPath(const std::string& dir) {
  handle_ = dal_open(dir.c_str(), nullptr);
  if (handle_ <= 0) throw std::runtime_error(std::string("dal_open: ") + dal_last_error());
  // The DAL sets the process's SQLite configuration (threading mode, memory
  // statistics, allocator) on its first SQLite call, which reading the
  // configuration for the version string makes. Made here, before the
  // floor's first sqlite3_open_v2 (which would initialize SQLite with the
  // defaults and leave the DAL unable to configure it), so both paths run
  // under the DAL's configuration, as they would in one host process.
  dal_version_string();
}

DalPath::~DalPath() { dal_close(handle_); }

bool DalPath::run(const Query& q, std::vector<uint8_t>& buf, std::string* why) {
  const int64_t n = dal_query_into(handle_, q.request.data(), q.request.size(), buf.data(), buf.size());
  if (n == static_cast<int64_t>(q.response.size()) &&
      std::memcmp(buf.data(), q.response.data(), q.response.size()) == 0)
    return true;
  if (n < 0) {
    *why = std::string(dal_code_name(static_cast<int32_t>(n))) + ": " + dal_last_error();
    return false;
  }
  if (n > static_cast<int64_t>(buf.size())) {
    *why = "an answer of " + std::to_string(n) + " bytes, larger than any expected one";
    return false;
  }
  if (!same_answer(buf.data(), static_cast<size_t>(n), q.response.data(), q.response.size(), why)) return false;
  reencoded_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

}  // namespace floorbench
