#include "io_backends/common/iperf2_udp_server.hh"

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>

#include "base/unique_fd.hh"
#include "engine/iperf2/udp_datagram.hh"
#include "engine/udp/flow_registry.hh"

namespace xttcp {

namespace {

// The local address a datagram from `source` came to: the socket's own, or, when it is bound
// to the wildcard, the one the kernel routes replies to `source` from.
std::string local_endpoint(int fd, const SocketAddress& source) {
  SocketAddress bound;
  bound.length = sizeof bound.storage;
  if (::getsockname(fd, bound.get(), &bound.length) != 0) return {};
  if (!bound.is_any()) return bound.to_string();
  UniqueFd probe(::socket(source.family(), SOCK_DGRAM | SOCK_CLOEXEC, 0));
  SocketAddress routed;
  routed.length = sizeof routed.storage;
  if (!probe.valid() || ::connect(probe.get(), source.get(), source.length) != 0 ||
      ::getsockname(probe.get(), routed.get(), &routed.length) != 0)
    return bound.to_string();
  routed.set_port(bound.port());
  return routed.to_string();
}

}  // namespace

uint32_t iperf2_flow_of(const SocketAddress& source) {
  uint32_t hash = 2166136261u;  // FNV-1a over the address bytes
  const auto* bytes = reinterpret_cast<const unsigned char*>(&source.storage);
  const std::size_t from = source.family() == AF_INET6 ? offsetof(sockaddr_in6, sin6_addr)
                                                       : offsetof(sockaddr_in, sin_addr);
  const std::size_t size = source.family() == AF_INET6 ? 16 : 4;
  for (std::size_t i = from; i < from + size; ++i) hash = (hash ^ bytes[i]) * 16777619u;
  return (hash & 0x7fffu) << 16 | source.port();
}

Iperf2UdpStream iperf2_stream_figures(const iperf2::ServerReport& r) {
  Iperf2UdpStream s;
  s.bytes = r.bytes;
  s.seconds = r.stop_sec + r.stop_usec / 1e6;
  s.datagrams = r.datagrams;
  s.lost = r.lost;
  s.out_of_order = r.out_of_order;
  s.jitter_ms = (r.jitter_sec + r.jitter_usec / 1e6) * 1000;
  return s;
}

void answer_iperf2_fin(UdpSocketAccounting& accounting, int fd, const SocketAddress& source,
                       const WorkerContext& context, uint32_t slot, WorkerReport& report) {
  if (const std::optional<uint32_t> began = accounting.take_began(); began && context.udp_flows)
    context.udp_flows->describe({slot, *began, local_endpoint(fd, source), source.to_string()});
  const std::optional<udp::Iperf2Fin> fin = accounting.take_fin();
  if (!fin) return;
  unsigned char reply[iperf2::server_report_size];
  iperf2::encode_server_report(fin->report, reply);
  // Lost on the way: the client sends its FIN again, and is answered again.
  (void)::sendto(fd, reply, sizeof reply, MSG_DONTWAIT, source.get(), source.length);
  if (!fin->first) return;
  ConnectionStats stream;
  stream.local = local_endpoint(fd, source);
  stream.remote = source.to_string();
  stream.bytes = fin->report.bytes;
  stream.stream = iperf2_flow_of(source);  // its flow, as the interval figures name it
  stream.iperf2_udp = iperf2_stream_figures(fin->report);
  report.connection_stats.push_back(std::move(stream));
}

}  // namespace xttcp
