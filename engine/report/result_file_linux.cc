#include "engine/report/result_file.hh"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace xttcp {

namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  // close() can report a deferred write error (NFS), so its result matters here.
  int close() {
    int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }

 private:
  int fd_;
};

std::string directory_of(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

Error write_error(const std::string& path, int error) {
  return fail(fmt::format("cannot write {}: {}", path, std::strerror(error)));
}

}  // namespace

Status write_file_atomically(const std::string& path, std::string_view content) {
  static std::atomic<unsigned> counter{0};
  std::string temp;
  int fd = -1;
  // O_EXCL with a name unique to this process and call; mkstemp would force mode 0600.
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    temp = fmt::format("{}.tmp.{}.{}", path, ::getpid(), counter.fetch_add(1));
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) return write_error(path, errno);
  }
  if (fd < 0) return write_error(path, EEXIST);
  Fd file(fd);

  auto give_up = [&](int error) -> Error {
    file.close();
    ::unlink(temp.c_str());
    return write_error(path, error);
  };

  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(file.get(), data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return give_up(errno);
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(file.get()) != 0) return give_up(errno);
  if (file.close() != 0) {
    int error = errno;
    ::unlink(temp.c_str());
    return write_error(path, error);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int error = errno;
    ::unlink(temp.c_str());
    return write_error(path, error);
  }
  // Make the rename itself durable; a failure here does not undo a complete file.
  int dir = ::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return ok();
}

}  // namespace xttcp
