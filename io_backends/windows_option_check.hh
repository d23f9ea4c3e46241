// The NTttcp-for-Windows options (TestSpec::windows) that a backend's data path honours or not.
// Every backend's check() states what it does; the rest is refused in one line naming the option
// and the backend, before anything starts. The engine never asks which backend runs.
#pragma once

#include <string_view>

#include "base/status.hh"
#include "engine/spec.hh"

namespace xttcp {

struct WindowsOptionSupport {
  bool socket_buffers = false;   // -rb / -sb: SO_RCVBUF / SO_SNDBUF on the data sockets
  bool verify_data = false;      // -d (receiver): every byte received is 'A'
  bool wait_all = false;         // -wa (receiver): MSG_WAITALL receives
  bool throttle = false;         // -thr (sender): KB/s per thread
  bool udp_unconnected = false;  // -uc: sendto/recvfrom on unconnected UDP sockets
  bool buffer_count = false;     // -n (count mode): each sender flow stops after N buffers and
                                 // closes; the receiver reports every connection its peer closed
  bool several_hosts = false;    // -m mappings towards (or bound to) different hosts in one run:
                                 // each flow connects to / listens on its own (flow_address)
  bool latency = false;          // -lm: every send/recv call timed (CallTimer) into the counters
  // Where the refused options are honoured, e.g. "use --backend epoll".
  std::string_view instead;
};

// ok() when `spec` asks only for what `does` lists (a Linux-dialect spec always passes), else
// e.g. "-d: the io_uring backend does not verify received bytes (use --backend epoll)".
Status check_windows_options(const TestSpec& spec, std::string_view backend,
                             const WindowsOptionSupport& does);

}  // namespace xttcp
