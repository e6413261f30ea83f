#include "postgres.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "dalshim.h"

#ifndef DALSTRESS_PG_CLUSTER_SCRIPT
#error "DALSTRESS_PG_CLUSTER_SCRIPT: the path of scripts/lib/pg-cluster.sh (stress/native/CMakeLists.txt)"
#endif

namespace dalstress {

namespace {

// Set for the copy pg-cluster.sh runs: it uses $DALKIT_PG_URL instead of
// starting a server again ("1"; "2" once it has said where the server is).
// The JS drivers set and read the same name and values.
constexpr const char* kChildMark = "DALKIT_PG_LOCAL_CHILD";

std::string base36(uint64_t v) {
  std::string s;
  do {
    s.insert(s.begin(), "0123456789abcdefghijklmnopqrstuvwxyz"[v % 36]);
    v /= 36;
  } while (v != 0);
  return s;
}

}  // namespace

bool is_postgres_url(std::string_view s) { return s.rfind("postgres://", 0) == 0 || s.rfind("postgresql://", 0) == 0; }

bool under_local_postgres(char** argv, std::string& url, std::string& error) {
  const char* mark = std::getenv(kChildMark);
  if (mark && (std::string_view(mark) == "1" || std::string_view(mark) == "2")) {
    const char* u = std::getenv("DALKIT_PG_URL");
    if (!u || !is_postgres_url(u)) {
      error = std::string(kChildMark) + " is set but DALKIT_PG_URL is not a postgres:// URL";
      return false;
    }
    url = u;
    // Said once: "2" tells a copy started again (--attribute) it was said.
    if (std::string_view(mark) == "1") {
      const char* dir = std::getenv("DALKIT_PG_CLUSTER");
      std::fprintf(stderr,
                   "dalstress: --postgres local: a throwaway server at %s in %s, stopped when dalstress exits\n", u,
                   dir ? dir : "(unknown)");
      setenv(kChildMark, "2", 1);
    }
    return true;
  }
  const std::string script = DALSTRESS_PG_CLUSTER_SCRIPT;
  if (access(script.c_str(), R_OK) != 0) {
    error = script + " is missing: --postgres local needs the kit's source tree (or give --postgres URL)";
    return false;
  }
  // The executable itself: bash's /proc/self/exe would be bash.
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    error = std::string("cannot find dalstress's own path: ") + std::strerror(errno);
    return false;
  }
  self[n] = '\0';
  if (setenv(kChildMark, "1", 1) != 0) {
    error = std::string("cannot set ") + kChildMark + ": " + std::strerror(errno);
    return false;
  }
  std::vector<const char*> args = {"bash", script.c_str(), "run", "--no-replica", "--", self};
  for (int i = 1; argv[i] != nullptr; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  execvp("bash", const_cast<char* const*>(args.data()));
  error = std::string("cannot execute bash ") + script + ": " + std::strerror(errno);
  return false;
}

std::string redacted_url(const std::string& url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const size_t start = scheme + 3;
  // The userinfo ends at the last '@' before the path: a password may hold '@'.
  const size_t path = url.find_first_of("/?#", start);
  const size_t at = url.rfind('@', path == std::string::npos ? std::string::npos : path);
  if (at == std::string::npos || at < start) return url;
  const size_t colon = url.find(':', start);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon + 1) + "***" + url.substr(at);
}

std::string run_schema_name() {
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  return "dalstress_" + std::to_string(getpid()) + "_" + base36(static_cast<uint64_t>(ms));
}

bool drop_run_schema(int64_t h, const std::string& schema, std::string& error) {
  // The name is run_schema_name()'s: letters, digits and '_', nothing to escape.
  const std::string sql = "DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE";
  const int32_t rc = dalshim_exec(h, schema.data(), schema.size(), sql.data(), sql.size());
  if (rc == DALSHIM_OK) return true;
  error = "cannot drop the run's schema " + schema + ": code " + std::to_string(rc) + " (" + dalshim_code_name(rc) +
          "): " + dalshim_last_error();
  return false;
}

}  // namespace dalstress
