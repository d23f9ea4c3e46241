// Result files are written whole or not at all: a reader (or a CI job) never sees half a file.
#pragma once

#include <string>
#include <string_view>

#include "base/status.hh"

namespace xttcp {

// Writes content to a new file in path's directory, fsyncs it, then renames it over path.
// The file gets the usual 0666 & ~umask mode. On failure the temporary file is removed,
// path is untouched, and the error reads "cannot write <path>: <strerror>".
// A symlink is followed: the link stays, its target is replaced. A character device or FIFO
// (/dev/stdout, /dev/null, a pipe) is written through, never replaced; a FIFO that nobody reads
// is an error at once. A directory, block device or socket is refused.
Status write_file_atomically(const std::string& path, std::string_view content);

// Before the test: would write_file_atomically(path) be allowed? One line naming `option` and
// the reason ("-x: cannot write out/r.xml: No such file or directory (its directory does not
// exist)"), so a run never ends by losing its result.
Status check_result_path(const std::string& path, std::string_view option);

// True when `path` (links followed) is a device or FIFO that results are written through to.
bool writes_through(const std::string& path);

// NTttcp for Windows' -xml appends each run's block to its file. This appends whole or not at
// all: the current content plus `content` replaces the file atomically (write_file_atomically).
// A missing file starts empty. Errors as above, or "cannot read <path>: <reason>".
Status append_file_atomically(const std::string& path, std::string_view content);

}  // namespace xttcp
