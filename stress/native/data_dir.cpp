#include "data_dir.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace dalstress {

namespace {

[[noreturn]] void refuse(const std::string& dir, const std::string& why) {
  throw std::runtime_error("--db-dir '" + dir + "': " + why);
}

// The parent of `dir` as typed: "a/b/" -> "a", "b" -> ".", "/b" -> "/".
std::string parent_of(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const auto slash = dir.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return dir.substr(0, slash);
}

}  // namespace

DataDir::DataDir(const std::string& user_dir) {
  if (user_dir.empty()) {
    temp_.emplace("dalstress");
    path_ = temp_->path();
    return;
  }
  path_ = user_dir;
  struct stat st {};
  if (::stat(user_dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) refuse(user_dir, "exists and is not a directory");
    if (::access(user_dir.c_str(), W_OK | X_OK) != 0) refuse(user_dir, std::strerror(errno));
    return;
  }
  if (errno != ENOENT) refuse(user_dir, std::strerror(errno));
  const std::string parent = parent_of(user_dir);
  if (::stat(parent.c_str(), &st) != 0)
    refuse(user_dir, "its parent directory '" + parent +
                         "' does not exist (dalstress creates only the last component; create the parent first)");
  if (!S_ISDIR(st.st_mode)) refuse(user_dir, "'" + parent + "' is not a directory");
  if (::mkdir(user_dir.c_str(), 0755) != 0) refuse(user_dir, std::string("cannot create it: ") + std::strerror(errno));
  created_ = true;
}

}  // namespace dalstress
