#include "engine/iperf3/udp_streams.hh"

#include <chrono>
#include <fmt/format.h>

#include "engine/iperf3/control_connection.hh"
#include "engine/iperf3/udp_datagram.hh"
#include "engine/net/os_socket.hh"
#include "engine/net/socket_io.hh"

namespace xttcp::iperf3 {

namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr std::chrono::seconds reply_wait{30};  // 3.12's SO_RCVTIMEO on the hello
constexpr std::chrono::milliseconds wait_step{100};
// The server's datagrams let pass before its reply (-R): 3.12 allows (4 + 2 x len) bytes read
// 4 at a time; a stream that already sends has no reply coming anyway.
constexpr uint32_t max_strays = 16;

std::string_view as_text(std::span<const unsigned char> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

Expected<UdpHelloDesk> UdpHelloDesk::open(const SocketAddress& port) {
  auto socket = bind_udp(port);
  if (!socket)
    return fail(fmt::format("unable to start UDP listener on port {}: {}", port.port(),
                            socket.error().message));
  return UdpHelloDesk(port, std::move(*socket));
}

Expected<std::optional<UniqueSocket>> UdpHelloDesk::take(const std::string& client_host,
                                                         int limit) {
  for (int taken = 0; taken < limit; ++taken) {
    unsigned char hello[8];
    SocketAddress from;
    const SocketTransfer got =
        receive_datagram(waiting_.get(), reinterpret_cast<char*>(hello), sizeof hello, from);
    if (got.bytes < 0) return std::optional<UniqueSocket>();  // nothing more now
    if (from.host() != client_host || !is_udp_hello({hello, static_cast<std::size_t>(got.bytes)})) {
      ++ignored_;
      continue;
    }
    auto next = bind_udp(port_);
    if (!next) return fail("unable to start UDP listener: " + next.error().message);
    if (Status connected = connect_udp(waiting_.get(), from); !connected)
      return fail(
          fmt::format("UDP stream from {}: {}", from.to_string(), connected.error().message));
    (void)send_some(waiting_.get(), as_text(udp_reply).data(), udp_reply.size());
    UniqueSocket stream = std::move(waiting_);
    waiting_ = std::move(*next);
    return std::optional<UniqueSocket>(std::move(stream));
  }
  return std::optional<UniqueSocket>();
}

Expected<UniqueSocket> open_udp_stream(const SocketAddress& server,
                                       const std::optional<SocketAddress>& source, bool reverse,
                                       const std::function<bool()>& interrupted) {
  auto socket = open_udp_socket(server.family());
  if (!socket) return fail("unable to create a new stream: " + socket.error().message);
  if (source)
    if (Status bound = bind_source_address(socket->get(), *source); !bound)
      return fail(fmt::format("unable to create a new stream: -B/--cport {}: {}",
                              source->to_string(), bound.error().message));
  if (Status connected = connect_udp(socket->get(), server); !connected)
    return fail("unable to create a new stream: " + connected.error().message);
  if (Status sent = write_control(socket->get(), as_text(udp_hello), "the server"); !sent)
    return fail("unable to create a new stream: " + sent.error().message);
  const auto deadline = SteadyClock::now() + reply_wait;
  uint32_t strays = reverse ? max_strays : 0;
  while (!interrupted()) {
    if (SteadyClock::now() >= deadline)
      return fail(
          fmt::format("unable to read from stream socket: no reply to the UDP hello in {} s",
                      reply_wait.count()));
    if (wait_socket(socket->get(), WaitFor::read, SteadyClock::now() + wait_step) <= 0) continue;
    unsigned char reply[8];
    const SocketTransfer got =
        receive_now(socket->get(), reinterpret_cast<char*>(reply), sizeof reply);
    if (got.bytes < 0 && would_block(got.error)) continue;
    if (got.bytes < 0)
      return fail("unable to read from stream socket: " + socket_error_text(got.error));
    if (is_udp_reply({reply, static_cast<std::size_t>(got.bytes)})) return std::move(*socket);
    if (strays-- == 0)
      return fail(
          "unable to read from stream socket: the server's reply to the UDP hello was not "
          "iperf3's");
  }
  return fail("interrupted");
}

}  // namespace xttcp::iperf3
