#include "io_backends/dpdk/dpdk_sender.hh"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_memcpy.h>
#include <rte_prefetch.h>

#include "engine/count_mode.hh"
#include "engine/udp/datagram_header.hh"
#include "engine/udp/flow_registry.hh"
#include "io_backends/dpdk/flow_endpoints.hh"

namespace xttcp::dpdk {

namespace {

constexpr uint8_t compat_fill = 'B';  // NTTTCP-for-Linux's UDP payload

void add(std::atomic<uint64_t>& counter, uint64_t n) { add_relaxed(counter, n); }

// The 16-bit words of the stamped header fields, for the incremental UDP checksum.
uint32_t stamped_words(uint32_t sequence, uint64_t time_ns) {
  return (sequence >> 16) + (sequence & 0xffff) + static_cast<uint32_t>(time_ns >> 48) +
         static_cast<uint32_t>((time_ns >> 32) & 0xffff) +
         static_cast<uint32_t>((time_ns >> 16) & 0xffff) + static_cast<uint32_t>(time_ns & 0xffff);
}

}  // namespace

Status DpdkUdpSender::open() {
  const TestSpec& spec = *context_.spec;
  queue_ = static_cast<uint16_t>(context_.plan->index);
  if (queue_ >= port_->queues)
    return fail(
        fmt::format("--dpdk-port {}: {} queue(s), one per worker: run at most {} sender "
                    "worker(s) (--threads)",
                    port_->name, port_->queues, port_->queues));
  queue_counters_ = &port_->counters[queue_];
  ipv6_ = context_.remote.family() == AF_INET6;
  datagram_ = spec.workload.send_buffer;
  const std::size_t headers = frame::headers_size(ipv6_);
  const uint32_t largest = largest_frame(*port_);
  if (headers + datagram_ > largest)
    return fail(fmt::format(
        "-b {}: the dpdk backend sends one frame per datagram, in one mbuf: at most {} bytes "
        "over {} ({}, MTU {}, frames up to {} bytes; multi-segment frames are not supported)",
        datagram_, largest - headers, ipv6_ ? "IPv6" : "IPv4", port_->name, port_->mtu, largest));
  native_ = spec.workload.udp_payload != UdpPayload::compat && datagram_ >= udp::header_size;
  budget_ = flow_send_datagrams(spec);
  header_at_ = headers;
  checksum_at_ = frame::udp_offset(ipv6_) + 6;
  seat_.take(report_.notes);
  port_->has_sender.store(true);

  auto shared = sending_endpoints(context_, *port_, report_.notes);
  if (!shared) return shared.error();
  frame::UdpEndpoints endpoints = *shared;

  // Checksums: by the NIC where tx_offload_capa offers them, else in software (UDP
  // incrementally: only the sequence and time words change per frame).
  const bool ip_by_nic = !ipv6_ && port_->ipv4_checksum_offload;
  const bool udp_by_nic = port_->udp_checksum_offload;
  if (ip_by_nic) offload_flags_ |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
  if (udp_by_nic)
    offload_flags_ |= (ipv6_ ? RTE_MBUF_F_TX_IPV6 : RTE_MBUF_F_TX_IPV4) | RTE_MBUF_F_TX_UDP_CKSUM;
  l3_len_ = static_cast<uint16_t>(ipv6_ ? frame::ipv6_bytes : frame::ipv4_bytes);
  if (context_.plan->index == 0)
    report_.notes.push_back(
        fmt::format("dpdk: checksums: {} {}", ipv6_ ? "UDP (IPv6)" : "IPv4 header and UDP",
                    udp_by_nic && (ipv6_ || ip_by_nic) ? "by the NIC (TX checksum offload)"
                    : udp_by_nic                       ? "UDP by the NIC, IPv4 header in software"
                    : ip_by_nic                        ? "IPv4 header by the NIC, UDP in software"
                                : "in software (the port offers no TX checksum offload)"));

  for (const FlowPlan& plan : context_.plan->flows) {
    Flow flow;
    flow.slot = plan.slot;
    flow.flow_id = context_.udp_flow_base | plan.slot;
    // Flows differ by source port, so RSS spreads them over the receiver's queues.
    endpoints.source_port = flow_source_port(plan);
    endpoints.destination_port = plan.port;
    flow.frame = frame::build_udp_frame(endpoints, datagram_, compat_fill);
    if (native_)
      udp::encode(udp::DatagramHeader{flow.flow_id, 0, 0, context_.udp_flow_token},
                  flow.frame.data() + header_at_);
    uint8_t* l3 = flow.frame.data() + frame::ethernet_bytes;
    if (ip_by_nic) reinterpret_cast<rte_ipv4_hdr*>(l3)->hdr_checksum = 0;
    if (udp_by_nic) {
      // The NIC completes the sum from the pseudo-header's, stored in the field.
      const uint16_t pseudo =
          ipv6_ ? rte_ipv6_phdr_cksum(reinterpret_cast<rte_ipv6_hdr*>(l3), offload_flags_)
                : rte_ipv4_phdr_cksum(reinterpret_cast<rte_ipv4_hdr*>(l3), offload_flags_);
      std::memcpy(flow.frame.data() + checksum_at_, &pseudo, 2);
    } else {
      flow.checksum_sum = frame::udp_checksum_sum(flow.frame.data());
    }
    flow.counters = &context_.udp_flows->add(plan.slot, flow.flow_id);
    if (budget_ > 0) {
      flow.left = budget_;
      flow.marker = frame::build_udp_frame(endpoints, udp::end_marker_size, 0);
    }
    flows_.push_back(std::move(flow));
  }
  report_.connections = static_cast<uint32_t>(flows_.size());
  return ok();
}

uint16_t DpdkUdpSender::send_burst(Flow& flow, uint16_t count, const TscClock& clock,
                                   const std::atomic<bool>& stop) {
  rte_mbuf* mbufs[burst];
  // Raw mbufs: the pool hands them back with refcnt 1, one segment and no next (the free path
  // guarantees it, as for rte_mbuf_raw_alloc), so only the first cache line's fields are set
  // below; rte_pktmbuf_alloc_bulk would also rewrite the second line of every mbuf.
  if (rte_mempool_get_bulk(port_->pool, reinterpret_cast<void**>(mbufs), count) != 0) {
    ++alloc_failed_;
    return 0;
  }
  const uint16_t length = static_cast<uint16_t>(flow.frame.size());
  const uint8_t* const pattern = flow.frame.data();
  const uint64_t now = clock.now_ns();
  const uint64_t ol_flags = offload_flags_;
  const bool software_udp_sum = !port_->udp_checksum_offload;
  for (uint16_t i = 0; i < count; ++i) {
    rte_mbuf* m = mbufs[i];
    if (i + 1 < count) rte_prefetch0(mbufs[i + 1]);
    m->data_off = static_cast<uint16_t>(std::min<uint32_t>(RTE_PKTMBUF_HEADROOM, m->buf_len));
    uint8_t* data = rte_pktmbuf_mtod(m, uint8_t*);
    rte_memcpy(data, pattern, length);
    m->data_len = length;
    m->pkt_len = length;
    m->ol_flags = ol_flags;
    if (ol_flags != 0) {
      m->l2_len = frame::ethernet_bytes;
      m->l3_len = l3_len_;
    }
    uint32_t sum = flow.checksum_sum;
    if (native_) {
      const uint32_t sequence = flow.next_sequence + i;
      udp::stamp(data + header_at_, sequence, now);
      sum += stamped_words(sequence, now);
    }
    if (software_udp_sum) {
      const uint16_t folded = static_cast<uint16_t>(~frame::fold(sum));
      const uint16_t wire = htons(folded == 0 ? 0xffff : folded);
      std::memcpy(data + checksum_at_, &wire, 2);
    }
  }
  uint16_t sent = rte_eth_tx_burst(port_->id, queue_, mbufs, count);
  // A full queue: retry the rest as they are (built, numbered) until it takes them.
  while (sent < count) {
    if (stop.load(std::memory_order_relaxed)) {
      rte_pktmbuf_free_bulk(mbufs + sent, count - sent);  // never sent: numbers unused
      break;
    }
    ++tx_full_;
    rte_pause();
    sent += rte_eth_tx_burst(port_->id, queue_, mbufs + sent, static_cast<uint16_t>(count - sent));
  }
  if (sent > 0) {
    const uint64_t bytes = uint64_t{sent} * datagram_;
    context_.counters[flow.slot].add(bytes);
    add(flow.counters->datagrams, sent);
    add(flow.counters->bytes, bytes);
    add_relaxed(queue_counters_->tx_frames, sent);
    add_relaxed(queue_counters_->tx_bytes, uint64_t{sent} * length);
    flow.next_sequence += sent;
    flow.left -= sent;
    if (flow.left == 0) {  // count mode: the data is done, the end markers follow
      flow.end.begin(now);
      ++ending_;
    }
  }
  return sent;
}

bool DpdkUdpSender::send_end_marker(Flow& flow, uint64_t now_ns) {
  rte_mbuf* m = rte_pktmbuf_alloc(port_->pool);
  if (m == nullptr) {
    ++alloc_failed_;
    return false;
  }
  const auto length = static_cast<uint16_t>(flow.marker.size());
  uint8_t* data = rte_pktmbuf_mtod(m, uint8_t*);
  std::memcpy(data, flow.marker.data(), length);
  m->data_len = length;
  m->pkt_len = length;
  udp::encode_end_marker({flow.flow_id, budget_, !native_, now_ns, context_.udp_flow_token},
                         data + header_at_);
  const uint16_t sum = htons(frame::udp_checksum(data));
  std::memcpy(data + checksum_at_, &sum, 2);
  if (rte_eth_tx_burst(port_->id, queue_, &m, 1) != 1) {
    rte_pktmbuf_free(m);
    ++tx_full_;
    return false;  // tried again on the next turn
  }
  add_relaxed(queue_counters_->tx_frames, 1);
  add_relaxed(queue_counters_->tx_bytes, length);
  return true;
}

void DpdkUdpSender::send_end_markers(const TscClock& clock) {
  const uint64_t now = clock.now_ns();
  for (Flow& flow : flows_) {
    if (!flow.end.due(now) || !send_end_marker(flow, now)) continue;
    flow.end.marker_sent();
    if (flow.end.finished()) {
      --ending_;
      if (context_.on_flow_done) context_.on_flow_done();
    }
  }
}

template <bool Paced>
void DpdkUdpSender::send_loop(const std::atomic<bool>& stop, uint32_t burst_frames,
                              double ticks_per_byte) {
  const TscClock clock;
  const auto count = static_cast<uint16_t>(burst_frames);
  double due = static_cast<double>(rte_rdtsc());
  while (!stop.load(std::memory_order_relaxed)) {
    if (ending_ > 0) send_end_markers(clock);
    for (Flow& flow : flows_) {
      if (flow.left == 0) continue;  // count mode: its N datagrams are out
      if constexpr (Paced) {
        // TSC pacing: wait (spinning, as a poll-mode sender does) until this burst is due.
        while (static_cast<double>(rte_rdtsc()) < due) {
          if (stop.load(std::memory_order_relaxed)) return;
          rte_pause();
        }
      }
      const auto size = static_cast<uint16_t>(std::min<uint64_t>(count, flow.left));
      const uint16_t sent = send_burst(flow, size, clock, stop);
      if constexpr (Paced) due += static_cast<double>(sent) * datagram_ * ticks_per_byte;
    }
  }
}

void DpdkUdpSender::run(const std::atomic<bool>& stop) {
  const TestSpec& spec = *context_.spec;
  const auto polling = seat_.start_polling();
  if (flows_.empty()) return;
  if (spec.workload.rate_limit_bps == 0) {
    send_loop<false>(stop, burst, 0.0);
    return;
  }
  const double bytes_per_second = static_cast<double>(spec.workload.rate_limit_bps) / 8.0 *
                                  static_cast<double>(flows_.size()) /
                                  static_cast<double>(spec.sender_connections());
  // A burst is at most ~1 ms of this worker's rate (at least one frame).
  const auto frames = static_cast<uint32_t>(
      std::clamp(bytes_per_second / 1000.0 / datagram_, 1.0, static_cast<double>(burst)));
  send_loop<true>(stop, frames, static_cast<double>(rte_get_tsc_hz()) / bytes_per_second);
}

WorkerReport DpdkUdpSender::finish() {
  seat_.leave(report_);
  note_count(report_.notes, tx_full_,
             fmt::format("TX queue {} was full {{}} times (the frames were retried)", queue_));
  note_count(report_.notes, alloc_failed_, "the mbuf pool was empty {} times");
  for (const Flow& flow : flows_) {
    ConnectionStats stats;
    stats.bytes = read(context_.counters[flow.slot]).bytes;
    report_.connection_stats.push_back(std::move(stats));
  }
  return report_;
}

}  // namespace xttcp::dpdk
