// Atomic result files on Windows (MoveFileExA replaces an existing file) and -xml's append.
#include <windows.h>

#include <gtest/gtest.h>

#include <string>

#include "engine/report/result_file.hh"
#include "tests/unit/report/golden.hh"

namespace xttcp {
namespace {

// A fresh directory under %TEMP%, removed with its files at the end.
class TempDir {
 public:
  TempDir() {
    char base[MAX_PATH + 1] = {};
    GetTempPathA(sizeof base, base);
    path_ = std::string(base) + "xttcp-report-" + std::to_string(GetCurrentProcessId());
    CreateDirectoryA(path_.c_str(), nullptr);
  }
  ~TempDir() {
    for (const std::string& name : entries()) DeleteFileA((path_ + "\\" + name).c_str());
    RemoveDirectoryA(path_.c_str());
  }
  const std::string& path() const { return path_; }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    WIN32_FIND_DATAA found{};
    HANDLE search = FindFirstFileA((path_ + "\\*").c_str(), &found);
    if (search == INVALID_HANDLE_VALUE) return names;
    do {
      const std::string name = found.cFileName;
      if (name != "." && name != "..") names.push_back(name);
    } while (FindNextFileA(search, &found));
    FindClose(search);
    return names;
  }

 private:
  std::string path_;
};

TEST(WriteFileAtomically, WritesAndReplaces) {
  TempDir dir;
  const std::string path = dir.path() + "\\result.xml";
  ASSERT_TRUE(write_file_atomically(path, "first version, longer\n"));
  ASSERT_TRUE(write_file_atomically(path, "second\n"));
  EXPECT_EQ(test::read_text(path), "second\n");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"result.xml"});  // no temp file left
}

TEST(WriteFileAtomically, MissingDirectoryNamesThePath) {
  TempDir dir;
  const std::string path = dir.path() + "\\no-such-dir\\result.xml";
  Status status = write_file_atomically(path, "x");
  ASSERT_FALSE(status);
  EXPECT_TRUE(status.error().message.starts_with("cannot write " + path + ": "))
      << status.error().message;
}

TEST(AppendFileAtomically, AppendsBlocks) {
  TempDir dir;
  const std::string path = dir.path() + "\\xml.txt";
  ASSERT_TRUE(append_file_atomically(path, "<a></a>\n"));
  ASSERT_TRUE(append_file_atomically(path, "<b></b>\n"));
  EXPECT_EQ(test::read_text(path), "<a></a>\n<b></b>\n");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"xml.txt"});
}

}  // namespace
}  // namespace xttcp
