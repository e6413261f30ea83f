// output_file.hpp -- a file dalstress writes after the run (the JSON or HTML report),
// opened before the first query.
//
// WHY OPEN IT FIRST.  A default run takes about 18 minutes; a typo in --json
// must stop it before the first query, not after the last one.  Opening the
// file (creating it when missing) is the only check that answers every case
// at once: missing directory, no permission, read-only file system, a
// directory in the way.  The file is not truncated until the report is
// written, so an earlier report at that path survives a run that fails
// before its end; a file this run created and never wrote is removed again.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dalstress {

class OutputFile {
 public:
  // Opens `path` for writing, creating it if missing.  On failure returns
  // nullopt and sets `error` to a sentence naming `what` and the path.
  static std::optional<OutputFile> open(const std::string& what, const std::string& path, std::string& error);

  OutputFile(OutputFile&& o) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  // Replaces the file's content with `bytes` (a regular file is truncated
  // first; a device or pipe just receives them) and closes it.  Call once.
  bool write_all(std::string_view bytes, std::string& error);

  const std::string& path() const { return path_; }

 private:
  OutputFile(std::string what, std::string path, int fd, bool created)
      : what_(std::move(what)), path_(std::move(path)), fd_(fd), created_(created) {}

  std::string what_, path_;
  int fd_ = -1;
  bool created_ = false;  // this run created the file (removed again if never written)
  bool written_ = false;
};

}  // namespace dalstress
