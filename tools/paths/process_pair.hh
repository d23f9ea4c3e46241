// What `xttcp compare-paths` needs of the OS: run this program as a receiver and a sender,
// each bounded in time and stopped by PID, and what it says about the machine around the runs.
// Linux: posix_spawn of /proc/self/exe (process_pair_linux.cc). Windows has one data path (iocp)
// and nothing to compare it with: every call says so (process_pair_windows.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.hh"

namespace xttcp {

struct PairCommand {
  std::vector<std::string> receiver_args, sender_args;  // argv[1..] of each xttcp process
  // Network namespaces to run each in ("": this one), through `ip netns exec`.
  std::string receiver_netns, sender_netns;
  uint16_t ready_port = 0;  // the receiver is ready when a TCP socket listens here (sync port)
  double timeout_s = 60;    // each process's bound; past it, it is killed
  std::string log_dir;      // receiver.out/.err and sender.out/.err land here
};

// Whether this OS runs process pairs for compare-paths at all (Windows: no, with the reason).
Status can_run_pairs();

struct PairFailure {
  std::string message;  // the process, its exit status and its last stderr line
  bool usage = false;   // a process refused its options (exit 2): no other run would do better
};

// Starts the receiver, waits for it to listen, runs the sender, then waits for both. Both exit
// 0: nullopt.
std::optional<PairFailure> run_process_pair(const PairCommand& command);

// A base port p such that p-1 .. p+count-1 are free for TCP and UDP on 127.0.0.1 now.
Expected<uint16_t> free_port_block(uint32_t count);

// "load average 1.95 2.10 2.30 (2 CPUs)" or "" where the OS does not say.
std::string machine_load();

}  // namespace xttcp
