#include "engine/iperf2/stream_preamble.hh"

#include "engine/iperf2/client_header.hh"

namespace xttcp::iperf2 {

std::vector<unsigned char> tcp_stream_preamble(const TestSpec& spec) {
  if (spec.dialect != Dialect::iperf2 || spec.role != Role::sender ||
      spec.workload.protocol != Protocol::tcp || spec.iperf2.compatibility)
    return {};
  const ClientHeader header = tcp_client_header(static_cast<uint32_t>(spec.sender_connections()),
                                                spec.layout.base_port, spec.workload.duration_s);
  std::vector<unsigned char> bytes(tcp_header_size);
  encode(header, bytes.data());
  return bytes;
}

}  // namespace xttcp::iperf2

namespace xttcp::iperf2 {

std::vector<unsigned char> tcp_accept_reply(const TestSpec& spec) {
  if (spec.dialect != Dialect::iperf2 || spec.role != Role::receiver ||
      spec.workload.protocol != Protocol::tcp)
    return {};
  std::vector<unsigned char> bytes(ack_size);
  encode_ack(bytes.data());
  return bytes;
}

}  // namespace xttcp::iperf2
