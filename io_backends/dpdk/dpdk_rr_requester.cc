#include "io_backends/dpdk/dpdk_rr_requester.hh"

#include <arpa/inet.h>

#include <cstring>

#include <fmt/format.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "io_backends/common/rr_flow.hh"
#include "io_backends/dpdk/flow_endpoints.hh"
#include "io_backends/dpdk/neighbour_answer.hh"

namespace xttcp::dpdk {

Status DpdkRrRequester::open() {
  const TestSpec& spec = *context_.spec;
  // Responses land on whichever RX queue the port's RSS picks: one worker polls them all.
  if (context_.worker_count > 1)
    return fail(
        fmt::format("--rr --backend dpdk: one requester worker (--threads 1), not {}: "
                    "responses come back on whichever queue the port's RSS picks",
                    context_.worker_count));
  queue_ = 0;
  ipv6_ = context_.remote.family() == AF_INET6;
  request_ = rr_request_bytes(spec);
  response_ = rr_response_bytes(spec);
  depth_ = spec.rr.depth;
  const std::size_t headers = frame::headers_size(ipv6_);
  const uint32_t largest = largest_frame(*port_);
  for (auto [option, size] : {std::pair{"-b", request_}, std::pair{"--response-size", response_}})
    if (headers + size > largest)
      return fail(
          fmt::format("{} {}: the dpdk backend carries a datagram in one frame of at most "
                      "{} bytes ({}, MTU {}): at most {} bytes",
                      option, size, largest, port_->name, port_->mtu, largest - headers));
  stamp_at_ = headers;
  checksum_at_ = frame::udp_offset(ipv6_) + 6;
  seat_.take(report_.notes);
  port_->has_sender.store(true);
  auto shared = sending_endpoints(context_, *port_, report_.notes);
  if (!shared) return shared.error();
  endpoints_ = *shared;
  flow_of_port_.assign(65536, -1);
  for (const FlowPlan& plan : context_.plan->flows) {
    frame::UdpEndpoints e = endpoints_;
    e.source_port = flow_source_port(plan);
    e.destination_port = plan.port;
    if (flow_of_port_[e.source_port] >= 0)
      return fail(
          fmt::format("--rr --backend dpdk: two flows share source port {} (-f): a "
                      "response would not tell them apart",
                      e.source_port));
    flow_of_port_[e.source_port] = static_cast<int32_t>(flows_.size());
    Flow flow;
    flow.slot = plan.slot;
    flow.frame = frame::build_udp_frame(e, request_, 0);
    prove_rr_requests(flow.frame.data() + stamp_at_, 1, request_, context_, flow.slot);
    flow.window = UdpRrWindow(depth_, loss_pause_ticks_);
    flows_.push_back(std::move(flow));
  }
  // Without -a the frames carry the responder's address: then there is no address to answer for.
  if (spec.layout.source_address.empty()) {
    endpoints_.source_ip = 0;
    endpoints_.source_ip6 = {};
  }
  report_.connections = static_cast<uint32_t>(flows_.size());
  return ok();
}

// Sends requests until `depth` are in flight; a full TX queue is retried until stop.
void DpdkRrRequester::refill(Flow& flow, uint64_t now, const std::atomic<bool>& stop) {
  const uint16_t length = static_cast<uint16_t>(flow.frame.size());
  while (flow.window.room()) {
    rte_mbuf* m = rte_pktmbuf_alloc(port_->pool);
    if (m == nullptr) {
      ++alloc_failed_;
      break;  // the loss pause tries again
    }
    uint8_t* data = rte_pktmbuf_mtod(m, uint8_t*);
    std::memcpy(data, flow.frame.data(), length);
    m->data_len = length;
    m->pkt_len = length;
    write_rr_stamp(data + stamp_at_, clock_.now());
    const uint16_t sum = htons(frame::udp_checksum(data));
    std::memcpy(data + checksum_at_, &sum, 2);
    while (rte_eth_tx_burst(port_->id, queue_, &m, 1) == 0) {
      if (stop.load(std::memory_order_relaxed)) {
        rte_pktmbuf_free(m);
        return;
      }
      ++tx_full_;
      rte_pause();
    }
    QueueCounters& counters = port_->counters[queue_];
    add_relaxed(counters.tx_frames, 1);
    add_relaxed(counters.tx_bytes, length);
    flow.window.sent();
  }
  flow.window.refilled(now);
}

void DpdkRrRequester::on_frames(rte_mbuf** mbufs, uint16_t count, const std::atomic<bool>& stop) {
  const uint64_t now = clock_.now();
  uint64_t frame_bytes = 0;
  for (uint16_t i = 0; i < count; ++i) {
    rte_mbuf* m = mbufs[i];
    const uint8_t* data = rte_pktmbuf_mtod(m, const uint8_t*);
    frame_bytes += rte_pktmbuf_pkt_len(m);
    const auto view = frame::parse_udp(data, rte_pktmbuf_data_len(m));
    const int32_t index = view ? flow_of_port_[view->destination_port] : -1;
    if (index < 0 || view->ipv6 != ipv6_ || view->payload_length < rr_limits::udp_min_bytes) {
      if (!view && answer_neighbour(*port_, m, queue_, endpoints_)) {
        ++neighbours_answered_;
        continue;  // the mbuf went out as the answer
      }
      ++other_frames_;
      rte_pktmbuf_free(m);
      continue;
    }
    Flow& flow = flows_[static_cast<uint32_t>(index)];
    const uint64_t stamp = read_rr_stamp(view->payload);
    rte_pktmbuf_free(m);
    if (!flow.window.answer(stamp, now)) continue;  // given up as lost, or not ours
    context_.rr_histograms[flow.slot].record(clock_.to_ns(now - stamp));
    context_.counters[flow.slot].add(uint64_t{request_} + response_);
    refill(flow, now, stop);
  }
  QueueCounters& counters = port_->counters[queue_];
  add_relaxed(counters.rx_frames, count);
  add_relaxed(counters.rx_bytes, frame_bytes);
}

void DpdkRrRequester::check_loss(uint64_t now, const std::atomic<bool>& stop) {
  for (Flow& flow : flows_) {
    if (!flow.window.quiet(now)) continue;
    report_.rr_lost += flow.window.give_up(now);
    refill(flow, now, stop);
  }
}

void DpdkRrRequester::run(const std::atomic<bool>& stop) {
  const auto polling = seat_.start_polling();
  for (Flow& flow : flows_) refill(flow, clock_.now(), stop);
  rte_mbuf* mbufs[burst];
  uint32_t idle = 0;
  while (!stop.load(std::memory_order_relaxed)) {
    const uint16_t n = rte_eth_rx_burst(port_->id, queue_, mbufs, burst);
    if (n > 0) {
      on_frames(mbufs, n, stop);
      idle = 0;
    } else if (++idle % 1024 == 0) {  // a clock read per 1024 empty polls is enough for 200 ms
      check_loss(clock_.now(), stop);
    }
  }
}

WorkerReport DpdkRrRequester::finish() {
  seat_.leave(report_);
  note_count(report_.notes, tx_full_,
             fmt::format("TX queue {} was full {{}} times (the frames were retried)", queue_));
  note_count(report_.notes, alloc_failed_, "the mbuf pool was empty {} times");
  note_count(report_.notes, other_frames_,
             "{} frame(s) ignored (not a response to one of this worker's flows)");
  note_count(report_.notes, neighbours_answered_,
             ipv6_ ? "answered {} neighbour solicitation(s)" : "answered {} ARP request(s)");
  return report_;
}

}  // namespace xttcp::dpdk
