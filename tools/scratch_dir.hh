// A private directory under the system's temporary one for what a command's child processes
// write (their consoles and result files): compare-paths, calibrate and sweep.
#pragma once

#include <filesystem>

#include "base/status.hh"

namespace xttcp {

// "<tmp>/xttcp-<who>-<16 hex digits>", created new. Errors name `who`: "sweep: no temporary
// directory: ...".
Expected<std::filesystem::path> make_scratch_dir(const char* who);

// Removes the directory and everything in it when it goes out of scope.
struct ScratchDirRemoval {
  std::filesystem::path dir;
  ~ScratchDirRemoval() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

}  // namespace xttcp
