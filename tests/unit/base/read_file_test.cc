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

TEST(ReadWholeFile, TakesAFileOfExactlyTheBound) {
  const fs::path path = scratch_file("bound");
  { std::ofstream(path, std::ios::binary) << std::string(1000, 'x'); }
  Expected<std::string> text = read_whole_file(path.string(), 1000);
  fs::remove(path);
  ASSERT_TRUE(text) << text.error().message;
  EXPECT_EQ(text->size(), 1000u);
}

TEST(ReadWholeFile, RefusesALargerFileByItsSizeBeforeReadingIt) {
  const fs::path path = scratch_file("sparse");
  { std::ofstream out(path, std::ios::binary); }
  fs::resize_file(path, 3'000'000'000);  // sparse: 3 GB that take no disk
  Expected<std::string> text = read_whole_file(path.string(), 256u << 20);
  fs::remove(path);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message,
            path.string() + ": 3000000000 bytes, over the limit of 268435456 bytes");
}

#ifndef _WIN32
TEST(ReadWholeFile, ReadsWhatHasNoSizeOnlyUpToTheBound) {
  Expected<std::string> text = read_whole_file("/dev/zero", 100'000);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message, "/dev/zero: more than 100000 bytes, the limit");
  Expected<std::string> small = read_whole_file("/proc/self/stat", 100'000);  // size 0, read
  ASSERT_TRUE(small) << small.error().message;
  EXPECT_FALSE(small->empty());
}
#endif

}  // namespace
}  // namespace xttcp
