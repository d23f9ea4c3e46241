#include <unistd.h>

#include "tools/cli/cpu_count.hh"

namespace xttcp {

unsigned configured_cpus() {
  const long count = sysconf(_SC_NPROCESSORS_CONF);
  return count > 0 ? static_cast<unsigned>(count) : 1;
}

}  // namespace xttcp
