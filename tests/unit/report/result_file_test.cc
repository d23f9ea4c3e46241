#include "engine/report/result_file.hh"

#include <dirent.h>
#include <fcntl.h>
#include <sys/sysmacros.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "tests/unit/report/golden.hh"

namespace xttcp {
namespace {

// A fresh directory under TMPDIR, removed with its files at the end.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
    pattern += "/xttcp-report-XXXXXX";
    path_ = mkdtemp(pattern.data()) ? pattern : "";
  }
  ~TempDir() {
    ::chmod(path_.c_str(), 0700);
    for (const std::string& name : entries()) ::unlink((path_ + "/" + name).c_str());
    ::rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    if (DIR* dir = ::opendir(path_.c_str())) {
      while (dirent* e = ::readdir(dir)) {
        std::string name = e->d_name;
        if (name != "." && name != "..") names.push_back(name);
      }
      ::closedir(dir);
    }
    return names;
  }

 private:
  std::string path_;
};

TEST(WriteFileAtomically, WritesAndReplaces) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string path = dir.path() + "/result.xml";
  ASSERT_TRUE(write_file_atomically(path, "first version, longer\n"));
  ASSERT_TRUE(write_file_atomically(path, "second\n"));
  EXPECT_EQ(test::read_text(path), "second\n");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"result.xml"});  // no temp file left
}

// Runs write_file_atomically as a user the directory does not let in. As root (which
// ignores permissions) it runs in a child that drops to "nobody"; the child's alarm bounds it.
std::string write_as_unprivileged(const std::string& path) {
  if (::geteuid() != 0) {
    Status status = write_file_atomically(path, "{}\n");
    return status ? "ok" : status.error().message;
  }
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "pipe failed";
  pid_t child = ::fork();
  if (child == 0) {
    ::alarm(10);
    ::close(pipe_fds[0]);
    std::string message = "cannot drop privileges";
    if (::setgid(65534) == 0 && ::setuid(65534) == 0) {
      Status status = write_file_atomically(path, "{}\n");
      message = status ? "ok" : status.error().message;
    }
    ssize_t ignored = ::write(pipe_fds[1], message.data(), message.size());
    (void)ignored;
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string message;
  char buffer[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) message.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return message;
}

TEST(WriteFileAtomically, UnwritableDirectoryLeavesNothing) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  ASSERT_EQ(::chmod(dir.path().c_str(), 0555), 0);
  const std::string path = dir.path() + "/result.json";
  EXPECT_EQ(write_as_unprivileged(path), "cannot write " + path + ": Permission denied");
  ::chmod(dir.path().c_str(), 0700);
  EXPECT_TRUE(dir.entries().empty());
}

TEST(WriteFileAtomically, MissingDirectoryFailsClearly) {
  Status status = write_file_atomically("/nonexistent-xttcp-dir/result.json", "{}");
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message,
            "cannot write /nonexistent-xttcp-dir/result.json: No such file or directory");
}

TEST(WriteFileAtomically, RenameOntoADirectoryFailsAndCleansUp) {
  // Works as root too: the temp file is created, then rename() over a directory fails.
  TempDir dir;
  const std::string path = dir.path() + "/taken";
  ASSERT_EQ(::mkdir(path.c_str(), 0700), 0);
  Status status = write_file_atomically(path, "data");
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message.rfind("cannot write " + path + ": ", 0), 0u);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"taken"});
  ::rmdir(path.c_str());
}

TEST(AppendFileAtomically, AppendsBlocks) {
  TempDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string path = dir.path() + "/xml.txt";
  ASSERT_TRUE(append_file_atomically(path, "<a></a>\n"));
  ASSERT_TRUE(append_file_atomically(path, "<b></b>\n"));
  EXPECT_EQ(test::read_text(path), "<a></a>\n<b></b>\n");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"xml.txt"});
}

// Result paths that are not regular files (a run as root once replaced a host's /dev/full with
// a regular file). Device nodes are made in a temporary directory, so no test touches /dev.
bool is_char_device(const std::string& path) {
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0 && S_ISCHR(info.st_mode);
}

TEST(WriteFileAtomically, ASymlinkStaysAndItsTargetGetsTheResult) {
  TempDir dir;
  const std::string target = dir.path() + "/real.json";
  const std::string link = dir.path() + "/latest.json";
  ASSERT_TRUE(write_file_atomically(target, "old\n"));
  ASSERT_EQ(::symlink("real.json", link.c_str()), 0);  // relative, as users make them
  ASSERT_TRUE(write_file_atomically(link, "new\n"));
  struct stat info {};
  ASSERT_EQ(::lstat(link.c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode));
  EXPECT_EQ(test::read_text(target), "new\n");
  const std::string dangling = dir.path() + "/next.json";
  ASSERT_EQ(::symlink("created.json", dangling.c_str()), 0);
  ASSERT_TRUE(write_file_atomically(dangling, "made\n"));
  EXPECT_EQ(test::read_text(dir.path() + "/created.json"), "made\n");
}

TEST(WriteFileAtomically, DevicesAreWrittenThroughNeverReplaced) {
  if (::geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  TempDir dir;
  const std::string null_node = dir.path() + "/null";
  const std::string full_node = dir.path() + "/full";
  ASSERT_EQ(::mknod(null_node.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  ASSERT_EQ(::mknod(full_node.c_str(), S_IFCHR | 0666, makedev(1, 7)), 0);
  EXPECT_TRUE(write_file_atomically(null_node, "<xml/>\n"));
  EXPECT_TRUE(is_char_device(null_node));
  Status full = write_file_atomically(full_node, "<xml/>\n");
  ASSERT_FALSE(full);
  EXPECT_EQ(full.error().message, "cannot write " + full_node + ": No space left on device");
  EXPECT_TRUE(is_char_device(full_node));
  EXPECT_TRUE(append_file_atomically(null_node, "<more/>\n"));
  EXPECT_TRUE(is_char_device(null_node));
  const std::string link = dir.path() + "/to-full";
  ASSERT_EQ(::symlink(full_node.c_str(), link.c_str()), 0);
  EXPECT_FALSE(write_file_atomically(link, "x"));
  EXPECT_TRUE(is_char_device(full_node));
  std::vector<std::string> names = dir.entries();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"full", "null", "to-full"}));  // no temp files
}

TEST(WriteFileAtomically, AFifoGetsTheContentOrFailsAtOnceWithoutAReader) {
  TempDir dir;
  const std::string fifo = dir.path() + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Status nobody = write_file_atomically(fifo, "x");
  ASSERT_FALSE(nobody);
  EXPECT_EQ(nobody.error().message,
            "cannot write " + fifo + ": it is a FIFO that no process reads");
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  ASSERT_TRUE(write_file_atomically(fifo, "{\"a\":1}\n"));
  char buffer[64] = {};
  EXPECT_EQ(::read(reader, buffer, sizeof buffer), 8);
  EXPECT_EQ(std::string(buffer), "{\"a\":1}\n");
  ::close(reader);
  struct stat info {};
  ASSERT_EQ(::lstat(fifo.c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode));
}

TEST(CheckResultPath, NamesTheOptionAndTheReasonBeforeTheTest) {
  TempDir dir;
  EXPECT_TRUE(check_result_path(dir.path() + "/new.xml", "-x"));
  Status missing = check_result_path(dir.path() + "/no/such/dir/r.xml", "-x");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "-x: cannot write " + dir.path() +
                                         "/no/such/dir/r.xml: No such file or directory (its "
                                         "directory does not exist)");
  Status directory = check_result_path(dir.path(), "--json");
  ASSERT_FALSE(directory);
  EXPECT_EQ(directory.error().message, "--json: cannot write " + dir.path() + ": Is a directory");
  EXPECT_TRUE(dir.entries().empty());  // checking writes nothing
}

}  // namespace
}  // namespace xttcp
