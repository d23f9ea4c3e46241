#include "io_backends/dpdk/dpdk_rr_responder.hh"

#include <arpa/inet.h>

#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "io_backends/common/rr_flow.hh"
#include "io_backends/common/rr_udp_gate.hh"
#include "io_backends/dpdk/neighbour_answer.hh"

namespace xttcp::dpdk {

Status DpdkRrResponder::open() {
  const TestSpec& spec = *context_.spec;
  auto queues = receive_queues(*port_, context_.plan->index, context_.worker_count, "responder");
  if (!queues) return queues.error();
  queues_ = std::move(*queues);
  if (context_.local.family() == AF_INET) {
    self_.source_ip =
        ntohl(reinterpret_cast<const sockaddr_in*>(context_.local.get())->sin_addr.s_addr);
  } else if (context_.local.family() == AF_INET6) {
    self_.ipv6 = true;
    std::memcpy(self_.source_ip6.data(),
                &reinterpret_cast<const sockaddr_in6*>(context_.local.get())->sin6_addr, 16);
  }
  response_ = rr_response_bytes(spec);
  gate_ = rr_udp_gate(context_, rr_request_bytes(spec), response_);
  const uint32_t largest = largest_frame(*port_);
  if (frame::headers_size(self_.ipv6) + response_ > largest)
    return fail(
        fmt::format("--response-size {}: the dpdk backend answers in one frame of at "
                    "most {} bytes ({}, MTU {})",
                    response_, largest, port_->name, port_->mtu));
  port_->has_receiver.store(true);
  base_port_ = spec.layout.base_port;
  const uint32_t fallback = context_.plan->flows.empty() ? 0 : context_.plan->flows.front().slot;
  slot_of_port_.assign(spec.layout.ports, fallback);
  for (const FlowPlan& flow : context_.plan->flows)
    if (flow.port >= base_port_ && uint32_t{flow.port} - base_port_ < spec.layout.ports)
      slot_of_port_[flow.port - base_port_] = flow.slot;
  seat_.take(report_.notes);
  return ok();
}

void DpdkRrResponder::serve(rte_mbuf** mbufs, uint16_t count, uint16_t queue,
                            const std::atomic<bool>& stop) {
  rte_mbuf* answers[burst];
  uint16_t answered = 0;
  uint64_t in_bytes = 0, out_bytes = 0;
  for (uint16_t i = 0; i < count; ++i) {
    rte_mbuf* m = mbufs[i];
    uint8_t* data = rte_pktmbuf_mtod(m, uint8_t*);
    const std::size_t length = rte_pktmbuf_data_len(m);
    in_bytes += rte_pktmbuf_pkt_len(m);
    const auto view = frame::parse_udp(data, length);
    const bool ours =
        view && view->ipv6 == self_.ipv6 &&
        (self_.ipv6 ? self_.source_ip6 == frame::Ipv6Address{} ||
                          std::memcmp(view->destination_ip6, self_.source_ip6.data(), 16) == 0
                    : self_.source_ip == 0 || view->destination_ip == self_.source_ip) &&
        view->destination_port >= base_port_ &&
        std::size_t{view->destination_port} - base_port_ < slot_of_port_.size();
    if (!ours) {
      if (!view && answer_neighbour(*port_, m, queue, self_)) {
        ++neighbours_answered_;
        continue;
      }
      ++other_frames_;
      rte_pktmbuf_free(m);
      continue;
    }
    const uint32_t request = view->payload_length;
    const uint32_t slot = slot_of_port_[view->destination_port - base_port_];
    // Not a request, or a larger answer than it brought to a source that proved nothing.
    const std::size_t present =
        std::min<std::size_t>(request, length - static_cast<std::size_t>(view->payload - data));
    if (gate_.answer(view->payload, present, request) == 0) {
      rte_pktmbuf_free(m);
      continue;
    }
    const std::size_t response =
        frame::turn_into_response(data, length, length + rte_pktmbuf_tailroom(m), response_);
    if (response == 0) {
      ++unanswerable_;
      rte_pktmbuf_free(m);
      continue;
    }
    m->data_len = static_cast<uint16_t>(response);
    m->pkt_len = static_cast<uint32_t>(response);
    m->ol_flags = 0;
    out_bytes += response;
    context_.counters[slot].add(uint64_t{request} + response_);
    answers[answered++] = m;
    if (!seen_data_) {
      seen_data_ = true;
      if (context_.on_accept) context_.on_accept();  // -N: the first request starts the clock
    }
  }
  QueueCounters& counters = port_->counters[queue];
  add_relaxed(counters.rx_frames, count);
  add_relaxed(counters.rx_bytes, in_bytes);
  if (answered == 0) return;
  if (context_.spec->rr.delay_us > 0)
    std::this_thread::sleep_for(std::chrono::microseconds(context_.spec->rr.delay_us));
  uint16_t sent = rte_eth_tx_burst(port_->id, queue, answers, answered);
  while (sent < answered && !stop.load(std::memory_order_relaxed)) {
    ++tx_full_;
    rte_pause();
    sent +=
        rte_eth_tx_burst(port_->id, queue, answers + sent, static_cast<uint16_t>(answered - sent));
  }
  if (sent < answered) rte_pktmbuf_free_bulk(answers + sent, answered - sent);
  add_relaxed(counters.tx_frames, sent);
  add_relaxed(counters.tx_bytes, out_bytes);
}

void DpdkRrResponder::run(const std::atomic<bool>& stop) {
  const auto polling = seat_.start_polling();
  rte_mbuf* mbufs[burst];
  while (!stop.load(std::memory_order_relaxed)) {
    for (uint16_t queue : queues_) {
      const uint16_t n = rte_eth_rx_burst(port_->id, queue, mbufs, burst);
      if (n > 0) serve(mbufs, n, queue, stop);
    }
  }
}

WorkerReport DpdkRrResponder::finish() {
  seat_.leave(report_);
  note_count(report_.notes, other_frames_,
             "{} frame(s) ignored (not UDP to this address and ports)");
  note_count(report_.notes, unanswerable_,
             "{} request(s) not answered (IPv4 options, or no room in the mbuf for the response)");
  note_count(report_.notes, neighbours_answered_,
             self_.ipv6 ? "answered {} neighbour solicitation(s)" : "answered {} ARP request(s)");
  note_count(report_.notes, tx_full_, "a TX queue was full {} times (the answers were retried)");
  gate_.note(report_);
  return report_;
}

}  // namespace xttcp::dpdk
