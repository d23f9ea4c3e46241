#include "engine/iperf3/server_test.hh"

#include <fmt/format.h>

#include "engine/iperf3/errors.hh"

namespace xttcp::iperf3 {

// The test's settings as the engine runs them: this server's spec with what the client asked.
TestSpec test_spec(const TestSpec& server, const Parameters& p, bool sending) {
  TestSpec t = server;
  t.role = sending ? Role::sender : Role::receiver;
  const bool udp = p.protocol == Protocol::udp;
  t.workload.protocol = udp ? xttcp::Protocol::udp : xttcp::Protocol::tcp;
  t.workload.udp_payload = UdpPayload::iperf3;  // read only in a UDP test
  t.iperf3.udp_counters_64bit = p.udp_counters_64bit;
  t.layout.one_port = true;
  t.layout.ports = p.parallel;
  t.layout.threads_per_port = 1;
  t.layout.conns_per_thread = 1;
  t.control.no_sync = true;
  t.workload.warmup_s = p.omit_s;
  // The client ends the test (TEST_END); this server's own end is 3.12's grace after it.
  t.workload.duration_s = (p.time_s > 0 ? p.time_s : max_time_s) + end_grace_s;
  t.workload.cooldown_s = 0;
  const uint32_t length = p.length > 0 ? p.length : 131072;
  t.workload.send_buffer = length;
  t.workload.recv_buffer = length;
  if (p.window > 0) t.io.socket_recv_buffer = t.io.socket_send_buffer = p.window;
  t.io.no_delay = p.nodelay;
  t.io.congestion = p.congestion;
  // -b and --fq-rate are per stream in iperf3, xttcp's over every stream; they pace the sending
  // end: this server only with -R or --bidir (a client that sends paces itself).
  if (sending) {
    auto times_streams = [&](uint64_t rate) {  // saturating: an absurd rate is no rate
      return rate > UINT64_MAX / p.parallel ? 0 : rate * p.parallel;
    };
    t.workload.rate_limit_bps = times_streams(p.rate_bps);
    t.workload.fq_rate_limit_bps = times_streams(p.fq_rate_bps);
  }
  return t;
}

std::optional<Refusal> refusal(const Parameters& p) {
  if (p.protocol == Protocol::sctp) return Refusal{error_no_sctp, "SCTP is not served"};
  if (p.protocol == Protocol::udp && (p.length < min_udp_length || p.length > max_udp_length))
    return Refusal{error_udp_block_size,
                   fmt::format("a UDP datagram of {} bytes (iperf3's are {} to {})", p.length,
                               min_udp_length, max_udp_length)};
  if (p.authenticated)
    return Refusal{error_not_implemented, "authentication (--username) is not served"};
  return std::nullopt;
}

}  // namespace xttcp::iperf3
