#include "base/read_file.hh"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace xttcp {

Expected<std::string> read_whole_file(const std::string& path) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const char* reason = errno != 0 ? std::strerror(errno) : "cannot open";
    return fail("cannot read " + path + ": " + reason);
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return fail("cannot read " + path + ": " + std::strerror(errno));
  return text.str();
}

}  // namespace xttcp
