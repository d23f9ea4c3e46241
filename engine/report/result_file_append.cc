// Appending through write_file_atomically: portable, so one file serves Linux and Windows.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "engine/report/result_file.hh"

namespace xttcp {

Status append_file_atomically(const std::string& path, std::string_view content) {
  if (writes_through(path)) return write_file_atomically(path, content);  // a stream appends
  std::string whole;
  {  // closed before the rename: Windows cannot replace a file that is open
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::ostringstream existing;
      existing << in.rdbuf();
      if (in.bad()) return fail("cannot read " + path + ": " + std::strerror(errno));
      whole = existing.str();
    }
  }
  whole.append(content);
  return write_file_atomically(path, whole);
}

}  // namespace xttcp
