// Reading a small text file (a /proc or sysfs entry, a result file) whole, on the control path.
#pragma once

#include <cstddef>
#include <limits>
#include <string>

#include "base/status.hh"

namespace xttcp {

// The file's bytes, unchanged (binary mode), if there are at most `max_bytes` of them. The size
// is checked before anything is read: a regular file larger than that is refused at once, and
// whatever has no size of its own (a device such as /dev/zero, a FIFO, a /proc entry) is read
// only up to the bound. Errors: "cannot read PATH: <reason>", or "PATH: N bytes, over the limit
// of M bytes" (for a file without a size: "PATH: more than M bytes, the limit").
Expected<std::string> read_whole_file(
    const std::string& path, std::size_t max_bytes = std::numeric_limits<std::size_t>::max());

}  // namespace xttcp
