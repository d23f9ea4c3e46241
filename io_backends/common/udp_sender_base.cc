#include "io_backends/common/udp_sender_base.hh"

#include <fmt/format.h>

#include "engine/count_mode.hh"
#include "engine/udp/datagram_header.hh"

namespace xttcp {

Expected<std::vector<UdpSenderFlow>> UdpSenderBook::open_sockets(bool blocking) {
  const TestSpec& spec = *context_.spec;
  datagram_ = spec.workload.send_buffer;
  iperf2_ = spec.workload.udp_payload == UdpPayload::iperf2;
  iperf3_ = spec.workload.udp_payload == UdpPayload::iperf3;
  iperf3_wide_ = iperf3_ && spec.iperf3.udp_counters_64bit;
  native_ = !iperf2_ && !iperf3_ && spec.workload.udp_payload != UdpPayload::compat &&
            datagram_ >= udp::header_size;
  auto sockets = open_udp_sender_flows(context_, blocking, report_.notes, std::move(adopted_));
  if (!sockets) return sockets.error();
  gso_segments_ = sockets->gso_segments;
  context_.udp_flows->gso_segments = gso_segments_;
  budget_ = flow_send_datagrams(spec);
  return std::move(sockets->flows);
}

void UdpSenderBook::add_notes(const std::string& gso_detail) {
  if (gso_segments_ > 0)
    report_.notes.push_back(fmt::format("UDP: GSO sends of up to {} x {}-byte datagrams{}",
                                        gso_segments_, datagram_, gso_detail));
  if (refused_ > 0)
    report_.notes.push_back(fmt::format(
        "UDP: {} sends were refused (ICMP port unreachable): is the receiver listening?",
        refused_));
}

}  // namespace xttcp
