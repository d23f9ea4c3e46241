// The iperf2 layout's receive side fed by hand: iperf 2's datagrams by source, on a steady clock
// the test sets (what a receiver passes with each batch).
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "engine/iperf2/udp_datagram.hh"
#include "engine/udp/datagram_accounting.hh"
#include "engine/udp/flow_registry.hh"

namespace xttcp::test {

struct Iperf2Datagrams {
  explicit Iperf2Datagrams(uint32_t table = udp::flows_per_socket(1)) : registry(table) {}

  udp::UdpFlowRegistry registry;
  std::function<void()> ended = [this] { ++flows_ended; };
  std::function<void()> started = [this] { ++flows_started; };
  udp::DatagramAccounting accounting{registry, 0, &ended, udp::DatagramLayout::iperf2, &started};
  int flows_started = 0, flows_ended = 0;
  uint64_t steady_ns = 1'000'000'000;  // the receiver's clock as the next datagram arrives

  // The next datagrams come from source port `flow` (its flow id, for the test).
  void from(uint32_t flow) {
    SocketAddress source;
    auto* in = reinterpret_cast<sockaddr_in*>(&source.storage);
    in->sin_family = AF_INET;
    in->sin_addr.s_addr = htonl(0x7f000001);
    source.length = sizeof(sockaddr_in);
    source.set_port(static_cast<uint16_t>(flow));
    flow_ = flow;
    source_ = source;
    accounting.set_source(flow_, source_, steady_ns);
  }
  // A datagram numbered `sequence` (negative: the FIN) of `length` bytes; whether it was data.
  bool send(int64_t sequence, uint64_t at_ns, std::size_t length = 200) {
    accounting.set_source(flow_, source_, steady_ns);
    std::vector<unsigned char> d(length, 'B');
    if (length >= iperf2::udp_head_size)
      iperf2::encode_head({sequence, 100, static_cast<uint32_t>(sequence < 0 ? 0 : sequence)},
                          d.data());
    const bool data = accounting.on_datagram(d.data(), d.size(), d.size(), at_ns);
    accounting.announce_ended();
    return data;
  }
  // What happened to streams since the last call.
  std::vector<udp::Iperf2StreamEvent> events() {
    std::vector<udp::Iperf2StreamEvent> out = accounting.stream_events();
    accounting.clear_stream_events();
    return out;
  }

 private:
  uint32_t flow_ = 0;
  SocketAddress source_;
};

}  // namespace xttcp::test
