// The contract's one piece of code: capability flags in words.
#include "engine/backend/backend.hh"

#include <fmt/format.h>

#include <utility>

#include "engine/backend/data_worker.hh"

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
      {cap_adopted_connections, "adopted-connections"},
  };
  std::string out;
  for (auto [bit, name] : names) {
    if ((caps & bit) == 0) continue;
    if (!out.empty()) out += ",";
    out += name;
  }
  return out.empty() ? "-" : out;
}

bool admit_data_connection(const WorkerContext& context, const SocketAddress& peer,
                           NativeSocket socket) {
  if (context.admission == nullptr) return true;
  if (!context.admission->within_data_descriptors(socket)) {
    const uint64_t said = context.admission->count_over_descriptor_reserve();
    if (said > 0 && context.on_notice)
      context.on_notice(
          fmt::format("data: closed a connection from {} at once{}: the last {} open files are "
                      "kept for the sync port (ulimit -n {}; --allow or --auth-key keep "
                      "strangers out)",
                      peer.to_string(),
                      said > 1 ? fmt::format(" ({} such since the last line)", said) : "",
                      context.admission->kept_for_control(), context.admission->open_files_limit()),
          true);
    return false;
  }
  return context.admission->open() ||
         context.admission->admit_connection(peer, PeerAdmission::Door::data, socket);
}

}  // namespace xttcp
