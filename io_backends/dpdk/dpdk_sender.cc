#include "io_backends/dpdk/dpdk_sender.hh"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "engine/udp/datagram_header.hh"
#include "engine/udp/flow_registry.hh"

namespace xttcp::dpdk {

namespace {

constexpr uint8_t compat_fill = 'B';  // NTTTCP-for-Linux's UDP payload
constexpr uint16_t ephemeral_base = 49152;
constexpr std::size_t header_at = frame::payload_offset;

void add(std::atomic<uint64_t>& counter, uint64_t n) {
  counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

uint32_t ipv4_of(const SocketAddress& address) {
  if (address.family() != AF_INET) return 0;
  return ntohl(reinterpret_cast<const sockaddr_in*>(address.get())->sin_addr.s_addr);
}

// The 16-bit words of the stamped header fields, for the incremental UDP checksum.
uint32_t stamped_words(uint32_t sequence, uint64_t time_ns) {
  return (sequence >> 16) + (sequence & 0xffff) + static_cast<uint32_t>(time_ns >> 48) +
         static_cast<uint32_t>((time_ns >> 32) & 0xffff) +
         static_cast<uint32_t>((time_ns >> 16) & 0xffff) + static_cast<uint32_t>(time_ns & 0xffff);
}

}  // namespace

DpdkUdpSender::~DpdkUdpSender() {
  if (registered_) unregister_thread();
}

Status DpdkUdpSender::open() {
  const TestSpec& spec = *context_.spec;
  queue_ = static_cast<uint16_t>(context_.plan->index);
  if (queue_ >= port_->queues)
    return fail(fmt::format("--dpdk-port {}: {} queue(s), one per worker: run at most {} sender "
                            "worker(s) (--threads)", port_->name, port_->queues, port_->queues));
  datagram_ = spec.send_buffer;
  const uint32_t largest = std::min<uint32_t>(port_->mtu, RTE_MBUF_DEFAULT_DATAROOM - 14) - 28;
  if (datagram_ > largest)
    return fail(fmt::format("-b {}: the dpdk backend sends one frame per datagram: at most {} "
                            "bytes on {} (MTU {})", datagram_, largest, port_->name, port_->mtu));
  native_ = spec.udp_payload != UdpPayload::compat && datagram_ >= udp::header_size;
  registered_ = register_thread();
  port_->has_sender.store(true);

  frame::UdpEndpoints endpoints;
  endpoints.source_mac = port_->mac;
  if (!spec.peer_mac.empty()) {
    auto mac = frame::parse_mac(spec.peer_mac);
    if (!mac) return fail("--peer-mac: " + mac.error().message);
    endpoints.destination_mac = *mac;
  } else if (context_.plan->index == 0) {
    report_.notes.push_back("dpdk: frames go to the broadcast MAC (no --peer-mac; no ARP yet)");
  }
  endpoints.destination_ip = ipv4_of(context_.remote);
  endpoints.source_ip = spec.source_address.empty() ? endpoints.destination_ip
                                                    : ipv4_of(context_.local);
  if (spec.source_address.empty() && context_.plan->index == 0)
    report_.notes.push_back("dpdk: no -a: frames carry the receiver's address as their source "
                            "(a kernel receiver drops them: give -a)");

  for (const FlowPlan& plan : context_.plan->flows) {
    Flow flow;
    flow.slot = plan.slot;
    flow.flow_id = context_.udp_flow_base | plan.slot;
    // Flows differ by source port, so RSS spreads them over the receiver's queues.
    endpoints.source_port = plan.source_port != 0
                                ? plan.source_port
                                : static_cast<uint16_t>(ephemeral_base + plan.slot % 16384);
    endpoints.destination_port = plan.port;
    flow.frame = frame::build_udp_frame(endpoints, datagram_, compat_fill);
    if (native_) udp::encode(udp::DatagramHeader{flow.flow_id, 0, 0}, flow.frame.data() + header_at);
    if (port_->udp_checksum_offload) {
      // The NIC completes the sum from the pseudo-header's (RFC 768), stored in the field.
      rte_ipv4_hdr* ip = reinterpret_cast<rte_ipv4_hdr*>(flow.frame.data() + frame::ethernet_bytes);
      ip->hdr_checksum = 0;
      const uint16_t pseudo = rte_ipv4_phdr_cksum(ip, RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_UDP_CKSUM);
      std::memcpy(flow.frame.data() + frame::udp_checksum_offset, &pseudo, 2);
    } else {
      flow.checksum_sum = frame::udp_checksum_sum(flow.frame.data());
      if (port_->ipv4_checksum_offload) {
        rte_ipv4_hdr* ip =
            reinterpret_cast<rte_ipv4_hdr*>(flow.frame.data() + frame::ethernet_bytes);
        ip->hdr_checksum = 0;
      }
    }
    flow.counters = &context_.udp_flows->add(plan.slot, flow.flow_id);
    flows_.push_back(std::move(flow));
  }
  report_.connections = static_cast<uint32_t>(flows_.size());
  return ok();
}

uint16_t DpdkUdpSender::send_burst(Flow& flow, uint16_t count, const TscClock& clock,
                                   const std::atomic<bool>& stop) {
  rte_mbuf* mbufs[burst];
  if (rte_pktmbuf_alloc_bulk(port_->pool, mbufs, count) != 0) {
    ++alloc_failed_;
    return 0;
  }
  const uint16_t length = static_cast<uint16_t>(flow.frame.size());
  const uint64_t now = clock.now_ns();
  uint64_t ol_flags = 0;
  if (port_->ipv4_checksum_offload) ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
  if (port_->udp_checksum_offload) ol_flags |= RTE_MBUF_F_TX_UDP_CKSUM;
  for (uint16_t i = 0; i < count; ++i) {
    rte_mbuf* m = mbufs[i];
    uint8_t* data = rte_pktmbuf_mtod(m, uint8_t*);
    std::memcpy(data, flow.frame.data(), length);
    m->data_len = length;
    m->pkt_len = length;
    if (ol_flags != 0) {
      m->ol_flags = ol_flags;
      m->l2_len = frame::ethernet_bytes;
      m->l3_len = frame::ipv4_bytes;
    }
    if (!native_) {
      if (!port_->udp_checksum_offload) {
        const uint16_t sum = static_cast<uint16_t>(~frame::fold(flow.checksum_sum));
        const uint16_t wire = htons(sum == 0 ? 0xffff : sum);
        std::memcpy(data + frame::udp_checksum_offset, &wire, 2);
      }
      continue;
    }
    const uint32_t sequence = flow.next_sequence + i;
    udp::stamp(data + header_at, sequence, now);
    if (!port_->udp_checksum_offload) {
      const uint16_t sum =
          static_cast<uint16_t>(~frame::fold(flow.checksum_sum + stamped_words(sequence, now)));
      const uint16_t wire = htons(sum == 0 ? 0xffff : sum);
      std::memcpy(data + frame::udp_checksum_offset, &wire, 2);
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
    flow.next_sequence += sent;
  }
  return sent;
}

template <bool Paced>
void DpdkUdpSender::send_loop(const std::atomic<bool>& stop, uint32_t burst_frames,
                              double ticks_per_byte) {
  const TscClock clock;
  const auto count = static_cast<uint16_t>(burst_frames);
  double due = static_cast<double>(rte_rdtsc());
  while (!stop.load(std::memory_order_relaxed)) {
    for (Flow& flow : flows_) {
      if constexpr (Paced) {
        // TSC pacing: wait (spinning, as a poll-mode sender does) until this burst is due.
        while (static_cast<double>(rte_rdtsc()) < due) {
          if (stop.load(std::memory_order_relaxed)) return;
          rte_pause();
        }
      }
      const uint16_t sent = send_burst(flow, count, clock, stop);
      if constexpr (Paced) due += static_cast<double>(sent) * datagram_ * ticks_per_byte;
    }
  }
}

void DpdkUdpSender::run(const std::atomic<bool>& stop) {
  const TestSpec& spec = *context_.spec;
  stats_start_ = read_stats(port_->id);
  stats_taken_ = true;
  if (flows_.empty()) return;
  if (spec.rate_limit_bps == 0) {
    send_loop<false>(stop, burst, 0.0);
    return;
  }
  const double bytes_per_second = static_cast<double>(spec.rate_limit_bps) / 8.0 *
                                  static_cast<double>(flows_.size()) /
                                  static_cast<double>(spec.sender_connections());
  // A burst is at most ~1 ms of this worker's rate (at least one frame).
  const auto frames = static_cast<uint32_t>(
      std::clamp(bytes_per_second / 1000.0 / datagram_, 1.0, static_cast<double>(burst)));
  send_loop<true>(stop, frames, static_cast<double>(rte_get_tsc_hz()) / bytes_per_second);
}

WorkerReport DpdkUdpSender::finish() {
  if (stats_taken_ && context_.plan->index == 0)
    report_.notes.push_back(stats_note(*port_, stats_start_, read_stats(port_->id)));
  if (tx_full_ > 0)
    report_.notes.push_back(fmt::format(
        "dpdk: TX queue {} was full {} times (the frames were retried)", queue_,
        tx_full_));
  if (alloc_failed_ > 0)
    report_.notes.push_back(fmt::format("dpdk: the mbuf pool was empty {} times", alloc_failed_));
  for (const Flow& flow : flows_) {
    ConnectionStats stats;
    stats.bytes = read(context_.counters[flow.slot]).bytes;
    report_.connection_stats.push_back(std::move(stats));
  }
  if (registered_) {
    unregister_thread();
    registered_ = false;
  }
  return report_;
}

}  // namespace xttcp::dpdk
