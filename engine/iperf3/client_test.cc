#include "engine/iperf3/client_test.hh"

#include <algorithm>

namespace xttcp::iperf3 {

Parameters client_parameters(const TestSpec& client) {
  const Iperf3Options& o = client.iperf3;
  Parameters p;
  p.protocol = client.workload.protocol == xttcp::Protocol::udp ? Protocol::udp : Protocol::tcp;
  p.udp_counters_64bit = p.protocol == Protocol::udp && o.udp_counters_64bit;
  p.get_server_output = o.get_server_output;
  p.omit_s = client.workload.warmup_s;
  const bool counted = o.bytes > 0 || o.blocks > 0;
  p.time_s = counted ? 0 : client.workload.duration_s;
  p.bytes = o.bytes;
  p.blocks = o.blocks;
  p.nodelay = client.io.no_delay;
  p.parallel = client.layout.ports;
  p.reverse = o.reverse;
  p.bidirectional = o.bidir;
  p.mss = o.mss;
  if (client.io.socket_send_buffer > 0)
    p.window = static_cast<uint32_t>(client.io.socket_send_buffer);
  p.length = client.workload.send_buffer;
  p.rate_bps = o.stream_rate_bps;
  p.fq_rate_bps = o.stream_fq_rate_bps;
  p.title = o.title;
  p.congestion = client.io.congestion;
  p.zerocopy = client.io.zerocopy == ZeroCopy::on;
  return p;
}

TestSpec client_engine_spec(const TestSpec& client, bool sending) {
  TestSpec t = client;
  const Iperf3Options& o = client.iperf3;
  t.role = sending ? Role::sender : Role::receiver;
  t.workload.udp_payload = UdpPayload::iperf3;  // read only in a UDP test
  t.layout.one_port = true;
  t.layout.threads_per_port = 1;
  t.layout.conns_per_thread = 1;
  t.control.no_sync = true;
  t.workload.cooldown_s = 0;
  t.workload.recv_buffer = t.workload.send_buffer;
  // -b and --fq-rate are per stream in iperf3, xttcp's over every stream; they pace the
  // sending end: with -R the server (it was told them in the parameters).
  t.workload.rate_limit_bps = 0;
  t.workload.fq_rate_limit_bps = 0;
  if (sending) {
    const uint64_t streams = client.layout.ports;
    auto times_streams = [&](uint64_t rate) {  // saturating: an absurd rate is no rate
      return rate > UINT64_MAX / streams ? 0 : rate * streams;
    };
    t.workload.rate_limit_bps = times_streams(o.stream_rate_bps);
    t.workload.fq_rate_limit_bps = times_streams(o.stream_fq_rate_bps);
  }
  if (!sending) t.io.zerocopy = ZeroCopy::off;  // -Z is the sender's: the server's then
  return t;
}

std::vector<StreamBothEnds> both_ends(bool sending, const Results& ours, const Results& theirs,
                                      const std::vector<int>& ids, double seconds) {
  std::vector<StreamBothEnds> both;
  const Results& sender = sending ? ours : theirs;
  for (std::size_t i = 0; i < ours.streams.size(); ++i) {
    const StreamTotals& mine = ours.streams[i];
    StreamTotals other;
    other.bytes = 0;
    other.end_time = 0;
    for (const StreamTotals& s : theirs.streams)
      if (s.id == mine.id) other = s;
    const StreamTotals& sent = sending ? mine : other;
    const StreamTotals& received = sending ? other : mine;
    StreamBothEnds s;
    s.id = i < ids.size() ? ids[i] : mine.id;
    s.sent_bytes = sent.bytes;
    s.sent_s = sent.end_time.value_or(seconds);
    if (sender.sender_has_retransmits == 1) s.retransmits = std::max<int64_t>(0, sent.retransmits);
    s.received_bytes = received.bytes;
    s.received_s = received.end_time.value_or(seconds);
    both.push_back(s);
  }
  return both;
}

std::vector<UdpStreamBothEnds> udp_both_ends(bool sending, const Results& ours,
                                             const Results& theirs, const std::vector<int>& ids,
                                             double seconds,
                                             const std::vector<int64_t>& out_of_order) {
  const std::vector<StreamBothEnds> bytes = both_ends(sending, ours, theirs, ids, seconds);
  std::vector<UdpStreamBothEnds> both;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const StreamTotals& mine = ours.streams[i];
    StreamTotals other;
    for (const StreamTotals& s : theirs.streams)
      if (s.id == mine.id) other = s;
    const StreamTotals& sent = sending ? mine : other;
    const StreamTotals& received = sending ? other : mine;
    UdpStreamBothEnds s;
    s.id = bytes[i].id;
    s.sent_bytes = bytes[i].sent_bytes;
    s.sent_s = bytes[i].sent_s;
    s.sent_packets = sent.packets;
    s.received_bytes = bytes[i].received_bytes;
    s.received_s = bytes[i].received_s;
    s.jitter_ms = received.jitter_s * 1000;
    s.lost = received.errors;
    s.received_packets = received.packets;
    if (!sending && i < out_of_order.size()) s.out_of_order = out_of_order[i];
    both.push_back(s);
  }
  return both;
}

}  // namespace xttcp::iperf3
