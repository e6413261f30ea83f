// data_dir.hpp -- the DAL's data directory for one run.
//
// Default: a fresh temporary directory, removed at the end (also after
// Ctrl-C).  --db-dir DIR: used as is when it exists, created when missing --
// but only its last component, and only when its parent exists, so a typo
// cannot silently create a tree of directories (as root, anywhere).  A
// --db-dir directory is always kept.
#pragma once

#include <optional>
#include <string>

#include "temp_dir.hpp"

namespace dalstress {

class DataDir {
 public:
  // Throws std::runtime_error with a message naming the path.
  explicit DataDir(const std::string& user_dir);

  const std::string& path() const { return path_; }
  bool temporary() const { return temp_.has_value(); }
  bool created() const { return created_; }  // --db-dir did not exist and was made by this run

 private:
  std::optional<dalkit::TempDir> temp_;
  std::string path_;
  bool created_ = false;
};

}  // namespace dalstress
