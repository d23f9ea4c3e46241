// Reading a small text file (a /proc or sysfs entry, a result file) whole, on the control path.
#pragma once

#include <string>

#include "base/status.hh"

namespace xttcp {

// The file's bytes, unchanged (binary mode). Error: "cannot read PATH: <reason>".
Expected<std::string> read_whole_file(const std::string& path);

}  // namespace xttcp
