#include "engine/report/result_file.hh"

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

}  // namespace
}  // namespace xttcp
