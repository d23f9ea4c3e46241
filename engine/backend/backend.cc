// The contract's one piece of code: capability flags in words.
#include "engine/backend/backend.hh"

#include <utility>

namespace xttcp {

std::string describe_capabilities(uint32_t caps) {
  static constexpr std::pair<Capability, const char*> names[] = {
      {cap_tcp, "tcp"},
      {cap_udp, "udp"},
      {cap_zerocopy_tx, "zerocopy-tx"},
      {cap_multishot_rx, "multishot-rx"},
      {cap_queue_binding, "queue-binding"},
      {cap_busy_poll, "busy-poll"},
      {cap_raw_frames, "raw-frames"},
      {cap_socket_buffers, "socket-buffers"},
      {cap_verify_data, "verify-data"},
      {cap_wait_all, "wait-all"},
      {cap_thread_rate, "thread-rate"},
      {cap_udp_unconnected, "udp-unconnected"},
      {cap_count_mode, "count-mode"},
      {cap_several_hosts, "several-hosts"},
      {cap_call_timing, "call-timing"},
      {cap_udp_send_offload, "udp-send-offload"},
      {cap_udp_receive_coalescing, "udp-receive-coalescing"},
      {cap_peer_filter, "peer-filter"},
      {cap_count_reads, "count-reads"},
  };
  std::string out;
  for (auto [bit, name] : names) {
    if ((caps & bit) == 0) continue;
    if (!out.empty()) out += ",";
    out += name;
  }
  return out.empty() ? "-" : out;
}

}  // namespace xttcp
