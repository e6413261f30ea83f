#include "attribute.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace dalstress {

namespace {

constexpr std::string_view kTracerFile = "libdalkit_tracer.so";
// Set for the executed copy: a tracer that did not load must not make
// dalstress execute itself forever.
constexpr const char* kChildMark = "DALKIT_ATTRIBUTE_CHILD";

// $DALKIT_TRACER, else the tracer beside dalstress (both in build/out/).
std::string tracer_path() {
  if (const char* env = std::getenv("DALKIT_TRACER"); env && *env) return env;
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return std::string(kTracerFile);
  std::string dir(self, static_cast<size_t>(n));
  dir.resize(dir.rfind('/') + 1);
  return dir + std::string(kTracerFile);
}

}  // namespace

bool run_under_tracer(char** argv, std::string& error) {
  if (dlsym(RTLD_DEFAULT, "dalkit_tracer_version") != nullptr) return true;
  const std::string path = tracer_path();
  if (const char* mark = std::getenv(kChildMark); mark && std::string_view(mark) == "1") {
    error = path + " was in LD_PRELOAD but is not loaded (the loader refused it)";
    return false;
  }
  if (access(path.c_str(), R_OK) != 0) {
    error = path + " is missing: build it with scripts/setup.sh (or cmake --build build --target dalkit_tracer), " +
            "or set DALKIT_TRACER";
    return false;
  }
  const char* old = std::getenv("LD_PRELOAD");
  const std::string preload = old && *old ? std::string(old) + ":" + path : path;
  if (setenv("LD_PRELOAD", preload.c_str(), 1) != 0 || setenv(kChildMark, "1", 1) != 0) {
    error = std::string("cannot set LD_PRELOAD: ") + std::strerror(errno);
    return false;
  }
  execv("/proc/self/exe", argv);
  error = std::string("cannot execute dalstress again under the tracer: ") + std::strerror(errno);
  return false;
}

}  // namespace dalstress
