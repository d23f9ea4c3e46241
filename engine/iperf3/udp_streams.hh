// The UDP streams of an iperf3 test (tests/reference/iperf3-3.12/README.md 5.1), made on the
// control plane before the workers adopt them: each stream is a connected UDP socket, opened by
// the client's hello on the test's port and the server's reply. The server's desk and the
// client's hello; the sessions count the streams (server_session.hh).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "base/status.hh"
#include "engine/net/address.hh"
#include "engine/net/socket_setup.hh"
#include "engine/net/unique_socket.hh"

namespace xttcp::iperf3 {

// The server's side. 3.12 takes any datagram from anyone as a stream's hello; this desk takes
// only the hello's four bytes, and only from the test's client host (its control connection's):
// a stranger's datagram makes no stream of the test, it is counted (ignored()).
class UdpHelloDesk {
 public:
  // Binds the socket the first hello comes to, on `port` (the control listener's address and
  // port): before CREATE_STREAMS goes out, as the client sends its hello at once.
  static Expected<UdpHelloDesk> open(const SocketAddress& port);

  NativeSocket socket() const { return waiting_.get(); }  // readable: datagrams to take
  // Reads the datagrams that came, up to `limit`: at the first hello of `client_host` the socket
  // that took it is connected to its source, replied on and returned as the stream; a fresh one
  // takes the next hello. nullopt: no hello came (yet).
  Expected<std::optional<UniqueSocket>> take(const std::string& client_host, int limit);
  uint64_t ignored() const { return ignored_; }

 private:
  UdpHelloDesk(SocketAddress port, UniqueSocket waiting)
      : port_(port), waiting_(std::move(waiting)) {}

  SocketAddress port_;
  UniqueSocket waiting_;
  uint64_t ignored_ = 0;
};

// The client's side: a socket connected to the server's port (`source`: -B and --cport), its
// hello, and the server's reply within 30 s, 3.12's wait. With `reverse` (the server sends) a
// few of the server's datagrams may overtake the reply, as 3.12 lets them. `interrupted` is
// asked while it waits. Errors are 3.12's "unable to create a new stream" or "unable to read
// from stream socket", with the reason.
Expected<UniqueSocket> open_udp_stream(const SocketAddress& server,
                                       const std::optional<SocketAddress>& source, bool reverse,
                                       const std::function<bool()>& interrupted);

}  // namespace xttcp::iperf3
