// Result files are written whole or not at all: a reader (or a CI job) never sees half a file.
#pragma once

#include <string>
#include <string_view>

#include "base/status.hh"

namespace xttcp {

// Writes content to a new file in path's directory, fsyncs it, then renames it over path.
// The file gets the usual 0666 & ~umask mode. On failure the temporary file is removed,
// path is untouched, and the error reads "cannot write <path>: <strerror>".
Status write_file_atomically(const std::string& path, std::string_view content);

// NTttcp for Windows' -xml appends each run's block to its file. This appends whole or not at
// all: the current content plus `content` replaces the file atomically (write_file_atomically).
// A missing file starts empty. Errors as above, or "cannot read <path>: <reason>".
Status append_file_atomically(const std::string& path, std::string_view content);

}  // namespace xttcp
