#include "output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace dalstress {

namespace {

std::string describe_open_error(const std::string& path, int err) {
  namespace fs = std::filesystem;
  if (err == ENOENT) {
    fs::path parent = fs::path(path).parent_path();
    if (parent.empty()) parent = ".";
    return "directory '" + parent.string() + "' does not exist";
  }
  return std::strerror(err);
}

}  // namespace

std::optional<OutputFile> OutputFile::open(const std::string& what, const std::string& path, std::string& error) {
  constexpr int kFlags = O_WRONLY | O_CLOEXEC | O_NOCTTY;
  // O_EXCL first, to know whether this run created the file.
  bool created = true;
  int fd = ::open(path.c_str(), kFlags | O_CREAT | O_EXCL, 0644);
  if (fd < 0 && errno == EEXIST) {
    created = false;
    fd = ::open(path.c_str(), kFlags);
  }
  if (fd < 0) {
    const int err = errno;
    error = "cannot write the " + what + " to '" + path + "': " + describe_open_error(path, err);
    return std::nullopt;
  }
  return OutputFile(what, path, fd, created);
}

OutputFile::OutputFile(OutputFile&& o) noexcept
    : what_(std::move(o.what_)), path_(std::move(o.path_)), fd_(o.fd_), created_(o.created_), written_(o.written_) {
  o.fd_ = -1;
  o.created_ = false;
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (created_ && !written_) ::unlink(path_.c_str());
}

bool OutputFile::write_all(std::string_view bytes, std::string& error) {
  auto failed = [&](const char* step) {
    error = "cannot write the " + what_ + " to '" + path_ + "': " + step + ": " + std::strerror(errno);
    return false;
  };
  if (fd_ < 0) {
    errno = EBADF;
    return failed("already written");
  }
  written_ = true;  // from here on the file holds (part of) this run's report: keep it
  struct stat st {};
  if (::fstat(fd_, &st) != 0) return failed("fstat");
  if (S_ISREG(st.st_mode) && ::ftruncate(fd_, 0) != 0) return failed("truncate");
  for (size_t off = 0; off < bytes.size();) {
    ssize_t n = ::write(fd_, bytes.data() + off, bytes.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return failed("write");
    }
    off += static_cast<size_t>(n);
  }
  const int fd = fd_;
  fd_ = -1;
  // close() reports deferred write errors (NFS, quota); it is part of the write.
  if (::close(fd) != 0) return failed("close");
  return true;
}

}  // namespace dalstress
