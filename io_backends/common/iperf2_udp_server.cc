#include "io_backends/common/iperf2_udp_server.hh"

#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstring>

#include "base/unique_fd.hh"
#include "engine/iperf2/udp_datagram.hh"
#include "engine/udp/flow_registry.hh"

namespace xttcp {

namespace {

constexpr uint64_t sweep_period_ns = 250'000'000;

// The local address a datagram from `source` came to: the socket's own, or, when it is bound
// to the wildcard, the one the kernel routes replies to `source` from.
std::string routed_local_endpoint(int fd, const SocketAddress& source) {
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

Iperf2UdpServer::Iperf2UdpServer(const WorkerContext& context, std::size_t sockets)
    : context_(context),
      max_records_(std::size_t{4} * std::max<std::size_t>(sockets, 1) *
                   (context.udp_flows ? context.udp_flows->flows_per_socket() : 1024)) {}

const std::string& Iperf2UdpServer::local_endpoint(int fd, const SocketAddress& source) {
  std::string host = source.host();
  if (fd != cached_fd_ || host != cached_host_) {
    cached_local_ = routed_local_endpoint(fd, source);
    cached_host_ = std::move(host);
    cached_fd_ = fd;
  }
  return cached_local_;
}

void Iperf2UdpServer::after_datagram(UdpReceiverSocket& socket, const SocketAddress& source,
                                     WorkerReport& report) {
  UdpSocketAccounting& accounting = *socket.accounting;
  if (const std::optional<uint32_t> began = accounting.take_began();
      began && context_.udp_flows && context_.udp_flows->describes_more())
    context_.udp_flows->describe(
        {socket.slot, *began, local_endpoint(socket.fd.get(), source), source.to_string()});
  if (!accounting.stream_events().empty()) serve_events(socket, report);
}

void Iperf2UdpServer::serve_events(UdpReceiverSocket& socket, WorkerReport& report) {
  for (const udp::Iperf2StreamEvent& event : socket.accounting->stream_events()) {
    if (event.answer) {
      unsigned char reply[iperf2::server_report_size];
      iperf2::encode_server_report(event.report, reply);
      // Lost on the way: the client sends its FIN again, and is answered again (budget allowing).
      (void)::sendto(socket.fd.get(), reply, sizeof reply, MSG_DONTWAIT, event.source.get(),
                     event.source.length);
    }
    if (event.ended_now) record(event, socket, report);
  }
  socket.accounting->clear_stream_events();
}

void Iperf2UdpServer::record(const udp::Iperf2StreamEvent& event, UdpReceiverSocket& socket,
                             WorkerReport& report) {
  if (event.how == udp::StreamEnd::silent) ++silent_;
  if (event.how == udp::StreamEnd::evicted) ++evicted_;
  if (recorded_ >= max_records_) {  // a spray of sources: counted, not listed
    ++unlisted_;
    return;
  }
  ++recorded_;
  ConnectionStats stream;
  stream.local = local_endpoint(socket.fd.get(), event.source);
  stream.remote = event.source.to_string();
  stream.bytes = event.report.bytes;
  stream.stream = event.flow_id;  // its flow, as the interval figures name it
  stream.iperf2_udp = iperf2_stream_figures(event.report);
  report.connection_stats.push_back(std::move(stream));
}

void Iperf2UdpServer::sweep(std::vector<UdpReceiverSocket>& sockets, WorkerReport& report) {
  const uint64_t now = monotonic_ns();
  if (now < next_sweep_ns_) return;
  next_sweep_ns_ = now + sweep_period_ns;
  for (UdpReceiverSocket& socket : sockets) {
    socket.accounting->end_silent_streams(now);
    if (!socket.accounting->stream_events().empty()) serve_events(socket, report);
    socket.accounting->announce_ended();
  }
}

void Iperf2UdpServer::finish(WorkerReport& report) const {
  if (silent_ + evicted_ > 0)
    report.notes.push_back(fmt::format(
        "iperf2 UDP: {} stream(s) ended without a FIN, each reported with what it had: {} silent "
        "for {} s, {} pushed out of the flow table by newer sources",
        silent_ + evicted_, silent_, udp::iperf2_silence_ns / 1'000'000'000, evicted_));
  if (unlisted_ > 0)
    report.notes.push_back(fmt::format(
        "iperf2 UDP: {} more stream(s) ended than the {} a receiving thread lists; their "
        "datagrams are in the totals",
        unlisted_, max_records_));
}

}  // namespace xttcp
