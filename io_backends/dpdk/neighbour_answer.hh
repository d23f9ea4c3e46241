// ARP (IPv4) or neighbour solicitation (IPv6) for this end's address, answered in place from a
// worker's queue: a kernel peer resolves a dpdk end before it sends to it. Used by the --rr
// workers (the stream receiver has its own, which also steps aside for --local).
#pragma once

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "io_backends/dpdk/frame.hh"
#include "io_backends/dpdk/runtime.hh"

namespace xttcp::dpdk {

// `self`: source_ip (IPv4, 0 = answer nothing) or source_ip6 (all zero = nothing), as `ipv6`
// says. True if the mbuf left as the answer (it is then no longer the caller's).
inline bool answer_neighbour(Port& port, rte_mbuf* m, uint16_t queue,
                             const frame::UdpEndpoints& self) {
  uint8_t* data = rte_pktmbuf_mtod(m, uint8_t*);
  const std::size_t length = rte_pktmbuf_data_len(m);
  if (!self.ipv6) {
    if (self.source_ip == 0 || !frame::answer_arp(data, length, self.source_ip, port.mac))
      return false;
  } else {
    if (self.source_ip6 == frame::Ipv6Address{}) return false;
    const std::size_t answer = frame::answer_neighbor_solicitation(
        data, length, length + rte_pktmbuf_tailroom(m), self.source_ip6, port.mac);
    if (answer == 0) return false;
    m->data_len = static_cast<uint16_t>(answer);
    m->pkt_len = static_cast<uint32_t>(answer);
  }
  return rte_eth_tx_burst(port.id, queue, &m, 1) == 1;
}

}  // namespace xttcp::dpdk
