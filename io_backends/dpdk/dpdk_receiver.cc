#include "io_backends/dpdk/dpdk_receiver.hh"

#include <arpa/inet.h>

#include <fmt/format.h>
#include <rte_mbuf.h>

#include "io_backends/dpdk/frame.hh"

namespace xttcp::dpdk {

DpdkUdpReceiver::~DpdkUdpReceiver() {
  if (registered_) unregister_thread();
}

Status DpdkUdpReceiver::open() {
  const TestSpec& spec = *context_.spec;
  const uint32_t index = context_.plan->index;
  const uint32_t workers = std::max<uint32_t>(context_.worker_count, 1);
  if (index >= port_->queues)
    return fail(fmt::format("--dpdk-port {}: {} queue(s): run at most {} receiver worker(s) "
                            "(--threads)", port_->name, port_->queues, port_->queues));
  for (uint32_t q = index; q < port_->queues; q += workers) queues_.push_back(static_cast<uint16_t>(q));
  if (context_.local.family() == AF_INET)
    local_ip_ = ntohl(reinterpret_cast<const sockaddr_in*>(context_.local.get())->sin_addr.s_addr);
  base_port_ = spec.base_port;
  accounting_.resize(spec.ports);
  const uint32_t fallback = context_.plan->flows.empty() ? 0 : context_.plan->flows.front().slot;
  byte_slot_.assign(spec.ports, fallback);
  for (const FlowPlan& flow : context_.plan->flows)
    if (flow.port >= base_port_ && uint32_t{flow.port} - base_port_ < spec.ports)
      byte_slot_[flow.port - base_port_] = flow.slot;
  registered_ = register_thread();
  return ok();
}

void DpdkUdpReceiver::on_frames(rte_mbuf** mbufs, uint16_t count, uint16_t queue,
                                uint64_t now_ns) {
  for (uint16_t i = 0; i < count; ++i) {
    rte_mbuf* m = mbufs[i];
    uint8_t* data = rte_pktmbuf_mtod(m, uint8_t*);
    const auto view = frame::parse_udp(data, rte_pktmbuf_data_len(m));
    if (!view || (local_ip_ != 0 && view->destination_ip != local_ip_) ||
        view->destination_port < base_port_ ||
        std::size_t{view->destination_port} - base_port_ >= accounting_.size()) {
      // A kernel peer asks for our MAC before it sends: answer from this queue.
      if (local_ip_ != 0 && !port_->has_sender.load(std::memory_order_relaxed) &&
          frame::answer_arp(data, rte_pktmbuf_data_len(m), local_ip_, port_->mac)) {
        if (rte_eth_tx_burst(port_->id, queue, &mbufs[i], 1) == 1) {
          mbufs[i] = nullptr;
          ++arp_answered_;
          continue;
        }
      }
      ++other_frames_;
      continue;
    }
    const uint32_t port_index = view->destination_port - base_port_;
    std::unique_ptr<UdpSocketAccounting>& accounting = accounting_[port_index];
    if (!accounting)  // once per port: an allocation on the first datagram, like a new flow
      accounting = std::make_unique<UdpSocketAccounting>(*context_.udp_flows, port_index);
    accounting->on_buffer(view->payload, view->payload_length, view->payload_length,
                          view->payload_length, now_ns);
    context_.counters[byte_slot_[port_index]].add(view->payload_length);
    if (!seen_data_) {
      seen_data_ = true;
      if (context_.on_accept) context_.on_accept();  // -N: the first datagram starts the clock
    }
  }
  for (uint16_t i = 0; i < count; ++i)
    if (mbufs[i] != nullptr) rte_pktmbuf_free(mbufs[i]);
}

void DpdkUdpReceiver::run(const std::atomic<bool>& stop) {
  stats_taken_ = true;
  stats_start_ = read_stats(port_->id);
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
  if (stats_taken_ && context_.plan->index == 0)
    report_.notes.push_back(stats_note(*port_, stats_start_, read_stats(port_->id)));
  if (other_frames_ > 0)
    report_.notes.push_back(fmt::format(
        "dpdk: {} frame(s) ignored (not IPv4/UDP to this address and ports)", other_frames_));
  if (arp_answered_ > 0)
    report_.notes.push_back(fmt::format("dpdk: answered {} ARP request(s)", arp_answered_));
  if (registered_) {
    unregister_thread();
    registered_ = false;
  }
  return report_;
}

}  // namespace xttcp::dpdk
