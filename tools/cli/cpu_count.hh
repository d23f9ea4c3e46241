// How many CPUs this machine has configured (online or not), for the -m CPU checks of both
// grammars. Per platform: cpu_count_linux.cc, cpu_count_windows.cc. Never 0.
#pragma once

namespace xttcp {

unsigned configured_cpus();

}  // namespace xttcp
