#include "tools/scratch_dir.hh"

#include <fmt/format.h>

#include <random>

namespace xttcp {

Expected<std::filesystem::path> make_scratch_dir(const char* who) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path parent = fs::temp_directory_path(ec);
  if (ec) return fail(fmt::format("{}: no temporary directory: {}", who, ec.message()));
  std::mt19937_64 random(std::random_device{}());
  for (int attempt = 0; attempt < 20; ++attempt) {
    fs::path dir = parent / fmt::format("xttcp-{}-{:016x}", who, random());
    if (fs::create_directory(dir, ec)) return dir;
  }
  return fail(fmt::format("{}: cannot create a directory in {}", who, parent.string()));
}

}  // namespace xttcp
