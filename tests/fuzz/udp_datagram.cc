// UDP datagrams on a receiving socket (epoll, io_uring; dpdk and iocp feed the same
// udp::DatagramAccounting): UDP_GRO trains split, the native header and count mode's end
// markers decoded, each flow's sequence tracked, the test's declared flows admitted (and every
// other flow, or a declared one without its token, kept out as foreign); or, in the iperf2
// layout, iperf 2's heads, each FIN answered within the report budget, silent streams ended.
// Checks the counters stay consistent, that a lone datagram is data exactly when the
// declarations admit it, and that a stream's reports never add up to more bytes than it brought.
//
// Input: byte 0 = the layout (bit 7: iperf2, its flows the sources 0-3 by each record's length)
// and count mode for NTttcp's payload (bits 0-6, end_compat_after: 0 = off, else 1-127
// datagrams). Byte 1 = the declarations (udp/flow_admission.hh): bit 7 set: the receiver
// admits flows (a sync receiver), bit 6 set: a sender of the test declared nothing, else bits
// 0-2 = how many declarations follow, 6 bytes each (big-endian): base (its low 12 bits; 0
// taken as 1), count (0 taken as 1), token. Then records: length (2 bytes, big-endian: the
// buffer's size as received), segment (2 bytes: UDP_GRO's segment size, 0 = one datagram),
// then the buffer's bytes (fewer at the end of the input: read with MSG_TRUNC). A record of
// length and segment 0xffff is no buffer: the next test starts, its senders the declarations
// but the first. tests/fuzz/make_corpus.py writes datagrams a real xttcp sender sent in this
// form.
#include <netinet/in.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "engine/udp/datagram_header.hh"
#include "engine/udp/end_marker.hh"
#include "engine/udp/flow_admission.hh"
#include "engine/udp/flow_registry.hh"
#include "io_backends/common/udp_accounting.hh"
#include "tests/fuzz/fuzz_check.hh"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  xttcp::udp::UdpFlowRegistry registry{8};  // a small table: flows leave it often
  uint64_t flows_ended = 0;
  const std::function<void()> on_flow_end = [&flows_ended] { ++flows_ended; };
  uint64_t flows_started = 0;
  const std::function<void()> on_flow_start = [&flows_started] { ++flows_started; };
  const bool iperf2 = (data[0] & 0x80) != 0;
  xttcp::UdpSocketAccounting socket(
      registry, 7, &on_flow_end,
      iperf2 ? xttcp::udp::DatagramLayout::iperf2 : xttcp::udp::DatagramLayout::native,
      &on_flow_start);
  if ((data[0] & 0x7f) != 0) socket.end_compat_after(data[0] & 0x7f);

  size_t at = 1;
  const uint8_t admission_byte = at < size ? data[at++] : 0;
  namespace udp = xttcp::udp;
  udp::FlowAdmission admission;
  std::optional<std::vector<udp::DeclaredFlows>> declared;  // nullopt: every flow counts
  if ((admission_byte & 0x80) != 0) {
    registry.set_admission(&admission);
    if ((admission_byte & 0x40) == 0) {
      declared.emplace();
      for (int n = admission_byte & 7; n > 0 && size - at >= 6; --n, at += 6) {
        const uint32_t base = (data[at] << 8 | data[at + 1]) & 0xfff;
        const uint32_t count = data[at + 2] << 8 | data[at + 3];
        declared->push_back({(base == 0 ? 1 : base) << udp::flow_slot_bits, count == 0 ? 1 : count,
                             static_cast<uint16_t>(data[at + 4] << 8 | data[at + 5])});
      }
    }
    admission.declare(declared);
  }
  // What the test's declarations admit, as the accounting must see them.
  const auto admitted = [&declared](const udp::DatagramHeader& header) {
    if (!declared) return true;
    return udp::is_sender_flow_id(header.flow_id) &&
           udp::FlowRules{true, *declared}.admits(header.flow_id, header.token);
  };

  uint64_t now_ns = 1'000'000'000;
  uint64_t datagrams = 0;
  uint64_t streams_ended = 0;                  // iperf2: stream events that ended a stream
  uint64_t sent_by[4] = {}, answered[4] = {};  // iperf2, per source: bytes sent, reports back
  while (at < size) {
    size_t length = 0, segment = 0;
    for (int i = 0; i < 2 && at < size; ++i) length = length << 8 | data[at++];
    for (int i = 0; i < 2 && at < size; ++i) segment = segment << 8 | data[at++];
    if (length == 0xffff && segment == 0xffff) {  // the next test: a sender of the last one left
      if (declared && !declared->empty()) declared->erase(declared->begin());
      if (declared) admission.declare(declared);
      continue;
    }
    const size_t present = length < size - at ? length : size - at;
    const size_t one = segment == 0 || segment > length ? length : segment;
    datagrams += one == 0 ? 1 : (length + one - 1) / one;
    if (iperf2) {
      xttcp::SocketAddress source;  // a source port per flow (only copied by the accounting)
      auto* in = reinterpret_cast<sockaddr_in*>(&source.storage);
      in->sin_family = AF_INET;
      in->sin_port = htons(static_cast<uint16_t>(length & 3));
      source.length = sizeof(sockaddr_in);
      socket.set_source(static_cast<uint32_t>(length & 3), source, now_ns);
      sent_by[length & 3] += length;
    }
    const size_t data_bytes = socket.on_buffer(data + at, present, length, segment, now_ns);
    FUZZ_CHECK(data_bytes <= length);
    // A lone native datagram (no GRO train) with its header whole: data exactly when admitted.
    udp::DatagramHeader header;
    if (!iperf2 && one == length && udp::decode(data + at, present, header) &&
        !udp::has_end_flag(data + at))
      FUZZ_CHECK(data_bytes == (admitted(header) ? length : 0));
    if (iperf2 && (length & 0xf0) == 0xf0) socket.end_silent_streams(now_ns + (length << 24));
    for (const udp::Iperf2StreamEvent& event : socket.stream_events()) {
      FUZZ_CHECK(iperf2);
      FUZZ_CHECK(event.report.lost <= event.report.datagrams);
      FUZZ_CHECK(!event.answer || event.how == udp::StreamEnd::fin);
      // A source never gets back more report bytes than it sent.
      if (event.answer) answered[event.flow_id & 3] += xttcp::iperf2::server_report_size;
      FUZZ_CHECK(answered[event.flow_id & 3] <= sent_by[event.flow_id & 3]);
      if (event.ended_now) ++streams_ended;
    }
    socket.clear_stream_events();
    socket.announce_ended();
    at += present;
    now_ns += 10'000 + (length & 0xff) * 997;  // arrivals spread unevenly (jitter)
  }

  FUZZ_CHECK(socket.flows() <= datagrams);
  FUZZ_CHECK(flows_started <= datagrams);
  if (iperf2) FUZZ_CHECK(streams_ended == flows_ended && flows_ended <= flows_started);
  FUZZ_CHECK(socket.flows() <= registry.flows_per_socket());  // invented ids are bounded
  const auto flows = registry.snapshot();
  FUZZ_CHECK(flows.size() <= datagrams);
  uint64_t counted = 0;
  for (const xttcp::udp::FlowRecord& flow : flows) {
    const xttcp::udp::UdpFlowSnapshot& c = flow.counters;
    FUZZ_CHECK(flow.slot == 7);
    counted += c.datagrams;
    // Foreign datagrams took no place in the table and no tracker; without a FlowAdmission
    // (-N, the Windows dialect) nothing is foreign but markers that end nothing.
    if (xttcp::udp::is_foreign_record(flow.flow_id)) {
      FUZZ_CHECK(c.unique == 0 && c.expected == 0);
      if ((admission_byte & 0x80) == 0 || !declared)
        FUZZ_CHECK(flow.flow_id == xttcp::udp::foreign_markers_flow ||
                   (iperf2 && flow.flow_id == xttcp::udp::headerless_flow));
    }
    // Every datagram is a first arrival, a duplicate or NTttcp's payload.
    FUZZ_CHECK(c.datagrams == c.unique + c.duplicates + c.compat_datagrams);
    FUZZ_CHECK(c.reordered <= c.unique);
    FUZZ_CHECK(c.lost() <= c.expected);
  }
  // End markers are not data: they are the only datagrams not counted.
  FUZZ_CHECK(counted <= datagrams);
  return 0;
}
