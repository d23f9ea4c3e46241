// Every processor group's processors: -m takes a processor number across groups.
#include <windows.h>

#include "tools/cli/cpu_count.hh"

namespace xttcp {

unsigned configured_cpus() {
  const DWORD count = GetMaximumProcessorCount(ALL_PROCESSOR_GROUPS);
  return count > 0 ? static_cast<unsigned>(count) : 1;
}

}  // namespace xttcp
