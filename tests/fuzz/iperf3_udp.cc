// iperf3's UDP at xttcp's receiver (the iperf3 dialect): datagrams on a stream's connected
// socket, read as iperf3's head (32- or 64-bit sequence) by udp::DatagramAccounting, and each
// one judged as a hello or a reply. Checks: a datagram is data exactly when it holds the head;
// the one stream's counters add up (datagrams = first arrivals + duplicates, its bytes those of
// the data); loss and reordering never exceed what was expected or received; a hello or reply
// is exactly four bytes.
//
// Input: byte 0 = bit 0: 64-bit sequences. Then records: length (1 byte), the datagram's bytes.
#include <cstddef>
#include <cstdint>
#include <span>

#include "engine/iperf3/udp_datagram.hh"
#include "engine/udp/datagram_accounting.hh"
#include "engine/udp/flow_registry.hh"
#include "tests/fuzz/fuzz_check.hh"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  namespace udp = xttcp::udp;
  namespace iperf3 = xttcp::iperf3;
  const bool wide = (data[0] & 1) != 0;
  udp::UdpFlowRegistry registry{8};
  udp::DatagramAccounting stream(
      registry, 2, nullptr, wide ? udp::DatagramLayout::iperf3_wide : udp::DatagramLayout::iperf3);
  uint64_t now_ns = 1'000'000'000, data_datagrams = 0, data_bytes = 0, others = 0;
  for (size_t at = 1; at < size;) {
    const size_t length = data[at++];
    const size_t present = length < size - at ? length : size - at;
    const std::span<const unsigned char> datagram(data + at, present);
    if (iperf3::is_udp_hello(datagram) || iperf3::is_udp_reply(datagram)) FUZZ_CHECK(present == 4);
    const bool counted = stream.on_datagram(data + at, present, present, now_ns);
    FUZZ_CHECK(counted == (present >= iperf3::udp_head_size(wide)));
    if (counted) {
      ++data_datagrams;
      data_bytes += present;
    } else {
      ++others;
    }
    at += present;
    now_ns += 10'000 + present * 997;  // arrivals spread unevenly (jitter)
  }
  uint64_t headerless = 0;
  for (const udp::FlowRecord& flow : registry.snapshot()) {
    const udp::UdpFlowSnapshot& c = flow.counters;
    FUZZ_CHECK(flow.slot == 2);
    if (flow.flow_id == udp::headerless_flow) {
      headerless += c.datagrams;
      continue;
    }
    FUZZ_CHECK(flow.flow_id == 2);  // the socket's one stream, whatever the datagrams say
    FUZZ_CHECK(c.datagrams == data_datagrams && c.bytes == data_bytes);
    FUZZ_CHECK(c.datagrams == c.unique + c.duplicates);
    FUZZ_CHECK(c.reordered <= c.unique);
    FUZZ_CHECK(c.lost() <= c.expected);
  }
  FUZZ_CHECK(headerless == others);
  FUZZ_CHECK(stream.flows() <= 1);
  return 0;
}
