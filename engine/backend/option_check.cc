#include "engine/backend/option_check.hh"

#include <string>

#include <fmt/format.h>

#include "engine/plan.hh"

namespace xttcp {

Status check_backend_options(const TestSpec& spec, const Backend& backend) {
  const uint32_t does = backend.capabilities();
  const bool sender = spec.role == Role::sender;
  auto lacks = [&](Capability cap) { return (does & cap) == 0; };
  auto refuse = [&](std::string_view option, std::string_view what) {
    const std::string_view instead = backend.instead();
    return fail(fmt::format("{}: the {} backend {}{}{}{}", option, backend.name(), what,
                            instead.empty() ? "" : " (", instead, instead.empty() ? "" : ")"));
  };
  const IoOptions& io = spec.io;
  if (lacks(cap_socket_buffers) && io.socket_recv_buffer >= 0)
    return refuse("-rb", "does not set SO_RCVBUF");
  if (lacks(cap_socket_buffers) && io.socket_send_buffer >= 0 && !io.send_buffer_implied)
    return refuse("-sb", "does not set SO_SNDBUF");
  if (lacks(cap_verify_data) && spec.workload.verify_data && !sender)
    return refuse("-d", "does not verify the received bytes");
  if (lacks(cap_wait_all) && io.wait_all && !sender)
    return refuse("-wa", "has no MSG_WAITALL receives");
  if (lacks(cap_thread_rate) && spec.workload.thread_rate_kBps > 0 && sender)
    return refuse("-thr", "does not throttle per thread");
  if (lacks(cap_udp_unconnected) && io.udp_unconnected)
    return refuse("-uc", "has no unconnected UDP sockets");
  if (lacks(cap_count_mode) && spec.workload.buffer_count)
    return refuse("-n", "does not run count mode");
  if (lacks(cap_several_hosts) && distinct_hosts(spec).size() > 1)
    return refuse("-m", "has one peer per run, not mappings towards different hosts");
  if (lacks(cap_call_timing) && io.time_each_call)
    return refuse("-lm", "does not time each send/recv call");
  // No backend splits one send into datagrams of another size yet: the hint is xttcp's own GSO.
  if (lacks(cap_udp_send_offload) && io.udp_send_offload > 0 && sender)
    return fail(
        fmt::format("-uso: the {} backend does not split a send into datagrams of another "
                    "size (drop -uso; --udp-gso sends -l-byte datagrams with UDP_SEGMENT)",
                    backend.name()));
  if (lacks(cap_udp_receive_coalescing) && io.udp_receive_coalescing && !sender)
    return refuse("-uro", "does not do UDP receive coalescing");
  // The iperf2 dialect asks for it: a TCP server's -e (Reads=Dist) or -i (each stream's lines).
  if (lacks(cap_count_reads) && io.count_reads && !sender &&
      spec.workload.protocol == Protocol::tcp)
    return refuse("-e/-i",
                  "does not count each connection's reads (a TCP server's per-stream "
                  "figures)");
  if (lacks(cap_peer_filter) && spec.access.restricted() && !sender)
    return fail(fmt::format("{}: the {} backend cannot turn peers away (epoll and io_uring can)",
                            spec.access.allow.empty() ? "--max-clients" : "--allow",
                            backend.name()));
  // --auth-key ties each TCP data connection to the session by a preamble, written by the
  // kernel-socket senders and read at accept by the receivers that can turn peers away. UDP's
  // tie is the flows declared over the authenticated sync connection, whatever the backend.
  if (lacks(cap_peer_filter) && !spec.control.auth_key_file.empty() &&
      spec.workload.protocol == Protocol::tcp)
    return fail(fmt::format(
        "--auth-key: the {} backend cannot tie TCP data connections to the session (epoll and "
        "io_uring can)",
        backend.name()));
  // A native one-port sender's workers connect as always (to PORT, with the session's
  // preamble); the receiver's are handed what its sync listener admitted, a --reverse or
  // --bidir sender's and the iperf3 dialect's adopt what the control plane made.
  if (lacks(cap_adopted_connections) && spec.layout.one_port &&
      (spec.dialect == Dialect::iperf3 || spec.role == Role::receiver || spec.workload.reverse ||
       spec.workload.bidir))
    return refuse(spec.dialect == Dialect::iperf3 ? "--dialect iperf3" : "--one-port",
                  "does not serve connections made on the control port");
  return ok();
}

Status accepts(const Backend& backend, const TestSpec& spec) {
  if (Status own = backend.check(spec); !own) return own;
  return check_backend_options(spec, backend);
}

}  // namespace xttcp
