#include "base/read_file.hh"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace xttcp {
namespace {

namespace fs = std::filesystem;

fs::path scratch_file(const char* name) {
  return fs::temp_directory_path() / (std::string("xttcp_unit_base_") + name);
}

TEST(ReadWholeFile, ReturnsEveryByteUnchanged) {
  const fs::path path = scratch_file("bytes");
  const std::string bytes("line one\r\nline two\n\0after a NUL\n", 33);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
  }
  Expected<std::string> text = read_whole_file(path.string());
  fs::remove(path);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, bytes);
}

TEST(ReadWholeFile, EmptyFileIsEmptyText) {
  const fs::path path = scratch_file("empty");
  { std::ofstream out(path, std::ios::binary | std::ios::trunc); }
  Expected<std::string> text = read_whole_file(path.string());
  fs::remove(path);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(*text, "");
}

TEST(ReadWholeFile, MissingFileNamesThePath) {
  const fs::path path = scratch_file("never_written");
  fs::remove(path);
  Expected<std::string> text = read_whole_file(path.string());
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message.rfind("cannot read " + path.string() + ": ", 0), 0U)
      << text.error().message;
}

}  // namespace
}  // namespace xttcp
