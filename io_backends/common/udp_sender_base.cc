#include "io_backends/common/udp_sender_base.hh"

#include <fmt/format.h>

#include "engine/count_mode.hh"
#include "engine/iperf3/udp_datagram.hh"
#include "engine/udp/datagram_header.hh"
#include "io_backends/common/udp_accounting.hh"

namespace xttcp {

Expected<std::vector<UdpSenderFlow>> UdpSenderBook::open_sockets(bool blocking) {
  const TestSpec& spec = *context_.spec;
  datagram_ = spec.workload.send_buffer;
  head_ = datagram_layout(spec);
  if (spec.workload.udp_payload == UdpPayload::compat ||
      (head_ == udp::DatagramLayout::native && datagram_ < udp::header_size))
    head_.reset();
  auto sockets = open_udp_sender_flows(context_, blocking, report_.notes, std::move(adopted_));
  if (!sockets) return sockets.error();
  gso_segments_ = sockets->gso_segments;
  context_.udp_flows->gso_segments = gso_segments_;
  budget_ = flow_send_datagrams(spec);
  return std::move(sockets->flows);
}

void UdpSenderBook::stamp(unsigned char* data, uint32_t count, uint32_t flow_id, uint16_t token,
                          uint64_t first, uint64_t now_ns) const {
  if (!head_) return;
  switch (*head_) {
    case udp::DatagramLayout::native:
      stamp_datagrams(data, datagram_, count, flow_id, token, static_cast<uint32_t>(first), now_ns);
      return;
    case udp::DatagramLayout::iperf2: stamp_iperf2_datagrams(data, datagram_, count, first); return;
    case udp::DatagramLayout::iperf3:
    case udp::DatagramLayout::iperf3_wide:
      iperf3::stamp_heads(data, datagram_, count, first, now_ns,
                          *head_ == udp::DatagramLayout::iperf3_wide);
      return;
  }
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
