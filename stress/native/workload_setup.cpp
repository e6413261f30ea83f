#include "workload_setup.hpp"

#include <vector>

#include "answer_check.hpp"
#include "dalshim.h"
#include "dalshim/pending.hpp"

namespace dalstress {

bool prepare_workload_database(int64_t h, const Workload& w, std::string& err) {
  if (!w.schema().empty()) {
    const int32_t rc = dalshim_exec(h, w.db().data(), w.db().size(), w.schema().data(), w.schema().size());
    if (rc != DALSHIM_OK) {
      err = "workload " + w.name() + ": schema on " + w.db() + ": dalshim_exec: code " + std::to_string(rc) + " (" +
            dalshim_code_name(rc) + "): " + dalshim_last_error();
      return false;
    }
  }
  std::vector<int64_t> env(static_cast<size_t>(w.slots()));
  ExpandedQuery q;
  std::vector<uint8_t> buf(64 * 1024);
  const int64_t total = w.seed_queries();
  for (int64_t k = 0; k < total; ++k) {
    w.expand_seed(k, env.data(), q);  // checked at load: cannot throw for k = 0; later k may
    int64_t n = dalshim_query_into(h, q.request.data(), q.request.size(), buf.data(), buf.size());
    std::vector<uint8_t> big;
    const uint8_t* answer = buf.data();
    if (n > static_cast<int64_t>(buf.size())) {
      n = dalshim::take_pending_into(big, n);
      answer = big.data();
    }
    const std::string what =
        "workload " + w.name() + ": seed request " + std::to_string(k) + " (id " + std::to_string(q.id) + ")";
    if (n < 0) {
      err = what + " failed: code " + std::to_string(n) + ": " + dalshim_last_error();
      return false;
    }
    std::string diff;
    if (!same_answer(answer, static_cast<size_t>(n), q.expect.data(), q.expect.size(), &diff)) {
      err = what + ": wrong answer " + diff;
      return false;
    }
  }
  return true;
}

}  // namespace dalstress
