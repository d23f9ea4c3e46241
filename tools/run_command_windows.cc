// The Windows build parses both dialects and prints help, version, backends and topology, but
// cannot run a test yet: the control plane (engine/control, engine/run) and the data path still
// use POSIX sockets, and the IOCP backend is not written. It says so instead of pretending.
#include "engine/exit_codes.hh"
#include "tools/run_command.hh"

#include <cstdio>

namespace xttcp {

int run_command(TestSpec spec, const std::vector<std::string>& notes) {
  (void)spec;
  (void)notes;
  std::fprintf(stderr,
               "xttcp: running a test is not available in the Windows build yet (the Winsock "
               "control plane and the IOCP data path are not written); this build has --help, "
               "--version, 'backends' and 'topology'\n");
  return exit_code::run_failed;
}

}  // namespace xttcp
