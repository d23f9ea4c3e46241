#include "io_backends/dpdk/dpdk_receiver.hh"

#include <arpa/inet.h>

#include <cstring>

#include <fmt/format.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "engine/count_mode.hh"
#include "io_backends/dpdk/frame.hh"

namespace xttcp::dpdk {

Status DpdkUdpReceiver::open() {
  const TestSpec& spec = *context_.spec;
  auto queues = receive_queues(*port_, context_.plan->index, context_.worker_count, "receiver");
  if (!queues) return queues.error();
  queues_ = std::move(*queues);
  if (context_.local.family() == AF_INET)
    local_ip_ = ntohl(reinterpret_cast<const sockaddr_in*>(context_.local.get())->sin_addr.s_addr);
  if (context_.local.family() == AF_INET6) {
    ipv6_ = true;
    std::memcpy(local_ip6_.data(),
                &reinterpret_cast<const sockaddr_in6*>(context_.local.get())->sin6_addr, 16);
    local_ip6_set_ = local_ip6_ != frame::Ipv6Address{};
  }
  port_->has_receiver.store(true);
  base_port_ = spec.layout.base_port;
  accounting_.resize(spec.layout.ports);
  const uint32_t fallback = context_.plan->flows.empty() ? 0 : context_.plan->flows.front().slot;
  byte_slot_.assign(spec.layout.ports, fallback);
  for (const FlowPlan& flow : context_.plan->flows)
    if (flow.port >= base_port_ && uint32_t{flow.port} - base_port_ < spec.layout.ports)
      byte_slot_[flow.port - base_port_] = flow.slot;
  seat_.take(report_.notes);
  return ok();
}

bool DpdkUdpReceiver::answer_neighbour(rte_mbuf* m, uint16_t queue) {
  // A kernel peer asks for our MAC before it sends (unless a sender of this process owns the
  // TX queues: --local).
  if (port_->has_sender.load(std::memory_order_relaxed)) return false;
  uint8_t* data = rte_pktmbuf_mtod(m, uint8_t*);
  const std::size_t length = rte_pktmbuf_data_len(m);
  if (!ipv6_) {
    if (local_ip_ == 0 || !frame::answer_arp(data, length, local_ip_, port_->mac)) return false;
  } else {
    if (!local_ip6_set_) return false;
    const std::size_t answer = frame::answer_neighbor_solicitation(
        data, length, length + rte_pktmbuf_tailroom(m), local_ip6_, port_->mac);
    if (answer == 0) return false;
    m->data_len = static_cast<uint16_t>(answer);
    m->pkt_len = static_cast<uint32_t>(answer);
  }
  if (rte_eth_tx_burst(port_->id, queue, &m, 1) != 1) return false;
  ++(ipv6_ ? nd_answered_ : arp_answered_);
  return true;
}

void DpdkUdpReceiver::on_frames(rte_mbuf** mbufs, uint16_t count, uint16_t queue, uint64_t now_ns) {
  uint64_t frame_bytes = 0;
  for (uint16_t i = 0; i < count; ++i) {
    rte_mbuf* m = mbufs[i];
    if (i + 1 < count) rte_prefetch0(rte_pktmbuf_mtod(mbufs[i + 1], void*));
    const uint8_t* data = rte_pktmbuf_mtod(m, const uint8_t*);
    frame_bytes += rte_pktmbuf_pkt_len(m);
    const auto view = frame::parse_udp(data, rte_pktmbuf_data_len(m));
    const bool ours =
        view && view->ipv6 == ipv6_ &&
        (ipv6_ ? !local_ip6_set_ || std::memcmp(view->destination_ip6, local_ip6_.data(), 16) == 0
               : local_ip_ == 0 || view->destination_ip == local_ip_) &&
        view->destination_port >= base_port_ &&
        std::size_t{view->destination_port} - base_port_ < accounting_.size();
    if (!ours) {
      if (!view && answer_neighbour(m, queue)) {
        mbufs[i] = nullptr;
        continue;
      }
      ++other_frames_;
      continue;
    }
    const uint32_t port_index = view->destination_port - base_port_;
    std::unique_ptr<UdpSocketAccounting>& accounting = accounting_[port_index];
    if (!accounting) {  // once per port: an allocation on the first datagram, like a new flow
      accounting = std::make_unique<UdpSocketAccounting>(*context_.udp_flows, port_index,
                                                         &context_.on_flow_done);
      // Count mode with NTttcp's payload (no end marker): a port's flow ends after N datagrams.
      accounting->end_compat_after(compat_datagrams_per_flow(*context_.spec));
    }
    const std::size_t data_bytes = accounting->on_buffer(
        view->payload, view->payload_length, view->payload_length, view->payload_length, now_ns);
    if (data_bytes > 0 || view->payload_length == 0)  // an end marker (count mode) is no data
      context_.counters[byte_slot_[port_index]].add(data_bytes);
    accounting->announce_ended();
    if (!seen_data_) {
      seen_data_ = true;
      if (context_.on_accept) context_.on_accept();  // -N: the first datagram starts the clock
    }
  }
  QueueCounters& counters = port_->counters[queue];
  add_relaxed(counters.rx_frames, count);
  add_relaxed(counters.rx_bytes, frame_bytes);
  for (uint16_t i = 0; i < count; ++i)
    if (mbufs[i] != nullptr) rte_pktmbuf_free(mbufs[i]);
}

void DpdkUdpReceiver::run(const std::atomic<bool>& stop) {
  const auto polling = seat_.start_polling();
  const TscClock clock;
  rte_mbuf* mbufs[burst];
  while (!stop.load(std::memory_order_relaxed)) {
    for (uint16_t queue : queues_) {
      const uint16_t n = rte_eth_rx_burst(port_->id, queue, mbufs, burst);
      if (n > 0) on_frames(mbufs, n, queue, clock.now_ns());
    }
  }
}

WorkerReport DpdkUdpReceiver::finish() {
  report_.connections = 0;
  for (const auto& accounting : accounting_)
    if (accounting) report_.connections += accounting->flows();
  seat_.leave(report_);
  note_count(report_.notes, other_frames_,
             "{} frame(s) ignored (not UDP to this address and ports)");
  note_count(report_.notes, arp_answered_, "answered {} ARP request(s)");
  note_count(report_.notes, nd_answered_, "answered {} neighbour solicitation(s)");
  return report_;
}

}  // namespace xttcp::dpdk
