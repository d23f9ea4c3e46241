#include "base/read_file.hh"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace xttcp {

Expected<std::string> read_whole_file(const std::string& path, std::size_t max_bytes) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const char* reason = errno != 0 ? std::strerror(errno) : "cannot open";
    return fail("cannot read " + path + ": " + reason);
  }
  // Size first: a 3 GB (even sparse) file is refused before a byte of it is read.
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) {
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (!ec && size > max_bytes)
      return fail(fmt::format("{}: {} bytes, over the limit of {} bytes", path, size, max_bytes));
  }
  // Then a capped read: what has no size (a device, a FIFO, /proc), or grew meanwhile, stops at
  // the bound.
  std::string text;
  std::array<char, 65536> chunk{};
  for (;;) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got > max_bytes - text.size())
      return fail(fmt::format("{}: more than {} bytes, the limit", path, max_bytes));
    text.append(chunk.data(), got);
    if (!in) break;
  }
  if (in.bad()) return fail("cannot read " + path + ": " + std::strerror(errno));
  return text;
}

}  // namespace xttcp
