#include "engine/report/result_file.hh"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
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

// The file a dangling symlink names (links followed up to 40 deep, as the kernel does), so
// the link stays and its target is created. A path that is no link is itself.
Expected<std::string> follow_dangling_links(const std::string& path) {
  std::string current = path;
  for (int hop = 0; hop < 40; ++hop) {
    struct stat info {};
    if (::lstat(current.c_str(), &info) != 0) {
      if (errno == ENOENT) return current;
      return write_error(path, errno);
    }
    if (!S_ISLNK(info.st_mode)) return current;
    std::string target(4096, '\0');
    const ssize_t length = ::readlink(current.c_str(), target.data(), target.size());
    if (length < 0) return write_error(path, errno);
    target.resize(static_cast<size_t>(length));
    current = target.starts_with('/') ? target : directory_of(current) + "/" + target;
  }
  return write_error(path, ELOOP);
}

enum class Kind { file, stream };

// Where a result for `path` goes and how. A regular file (links followed) is replaced
// atomically in its own directory, so a symlink stays a symlink. A character device or FIFO
// (/dev/stdout, /dev/null, a pipe) is written through: replacing it would destroy the node. A
// directory, block device or socket is refused.
struct Destination {
  Kind kind;
  std::string path;  // what to open (a stream) or to replace (a file)
};

Expected<Destination> destination_of(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    if (errno != ENOENT) return write_error(path, errno);
    auto created = follow_dangling_links(path);
    if (!created) return created.error();
    return Destination{Kind::file, *created};
  }
  if (S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode)) return Destination{Kind::stream, path};
  if (!S_ISREG(info.st_mode)) return write_error(path, S_ISDIR(info.st_mode) ? EISDIR : EINVAL);
  char* real = ::realpath(path.c_str(), nullptr);
  if (real == nullptr) return write_error(path, errno);
  Destination file{Kind::file, real};
  std::free(real);
  return file;
}

Status write_all(int fd, std::string_view content, const std::string& path) {
  const char* data = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return write_error(path, errno);
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  return ok();
}

// A device or FIFO: opened without creating or truncating anything. A FIFO nobody reads is an
// error at once (O_NONBLOCK), not a wait for ever.
Status write_through(const std::string& path, const std::string& shown, std::string_view content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENXIO)
      return fail(fmt::format("cannot write {}: it is a FIFO that no process reads", shown));
    return write_error(shown, errno);
  }
  Fd file(fd);
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  if (Status written = write_all(fd, content, shown); !written) return written;
  if (file.close() != 0) return write_error(shown, errno);
  return ok();
}

Status replace_atomically(const std::string& path, const std::string& shown,
                          std::string_view content) {
  static std::atomic<unsigned> counter{0};
  std::string temp;
  int fd = -1;
  // O_EXCL with a name unique to this process and call; mkstemp would force mode 0600.
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    temp = fmt::format("{}.tmp.{}.{}", path, ::getpid(), counter.fetch_add(1));
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) return write_error(shown, errno);
  }
  if (fd < 0) return write_error(shown, EEXIST);
  Fd file(fd);

  auto give_up = [&](int error) -> Error {
    file.close();
    ::unlink(temp.c_str());
    return write_error(shown, error);
  };
  if (Status written = write_all(file.get(), content, shown); !written) {
    file.close();
    ::unlink(temp.c_str());
    return written.error();
  }
  if (::fsync(file.get()) != 0) return give_up(errno);
  if (file.close() != 0) {
    int error = errno;
    ::unlink(temp.c_str());
    return write_error(shown, error);
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int error = errno;
    ::unlink(temp.c_str());
    return write_error(shown, error);
  }
  // Make the rename itself durable; a failure here does not undo a complete file.
  int dir = ::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return ok();
}

}  // namespace

Status write_file_atomically(const std::string& path, std::string_view content) {
  auto destination = destination_of(path);
  if (!destination) return destination.error();
  if (destination->kind == Kind::stream) return write_through(destination->path, path, content);
  return replace_atomically(destination->path, path, content);
}

Status check_result_path(const std::string& path, std::string_view option) {
  auto destination = destination_of(path);
  if (!destination) return fail(fmt::format("{}: {}", option, destination.error().message));
  // A new or replaced file is made in its directory; a device or FIFO is opened for writing.
  const bool stream = destination->kind == Kind::stream;
  const std::string where = stream ? destination->path : directory_of(destination->path);
  if (::access(where.c_str(), stream ? W_OK : W_OK | X_OK) != 0)
    return fail(fmt::format("{}: cannot write {}: {}{}", option, path, std::strerror(errno),
                            errno == ENOENT ? " (its directory does not exist)" : ""));
  return ok();
}

bool writes_through(const std::string& path) {
  auto destination = destination_of(path);
  return destination && destination->kind == Kind::stream;
}

}  // namespace xttcp
