// Socket set-up shared by every kernel-socket backend and the control plane (control path only).
// Per platform: socket_setup_linux.cc, socket_setup_windows.cc.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "base/status.hh"
#include "engine/net/address.hh"
#include "engine/net/unique_socket.hh"

namespace xttcp {

// The interface that owns `address`, for SO_BINDTODEVICE (-a); nullopt if none or wildcard
// (always nullopt on Windows, which binds by address only). Linux remembers the answers per
// thread: a sender asks once per connection.
std::optional<std::string> interface_of(const SocketAddress& address);

// A non-blocking TCP listener on `address` (SO_REUSEADDR on Linux; exclusive on Windows), or
// "port N: <reason>".
Expected<UniqueSocket> listen_tcp(const SocketAddress& address, int backlog);

struct ConnectOptions {
  std::optional<SocketAddress> source;  // -a address and/or -f port
  bool bind_to_device = false;          // SO_BINDTODEVICE to the interface owning `source`
  bool no_delay = false;
  uint64_t max_pacing_rate_bytes = 0;  // SO_MAX_PACING_RATE, 0 = unset (Linux only)
  // SO_SNDBUF and SO_RCVBUF before connect, so the window scale the SYN offers fits them
  // (iperf3's -w); 0 = unset.
  uint64_t socket_buffers = 0;
  // TCP with a source address and port 0: IP_BIND_ADDRESS_NO_PORT (Linux), so connect() picks
  // the port by the whole 4-tuple; bind() alone would take a port of its own for every socket
  // and run out after ~28k connections per source address.
  bool port_at_connect = false;
  // TCP: TCP_MAXSEG before connect, so the SYN offers it and both directions' segments keep to
  // it (iperf3's -M); 0 = unset.
  uint32_t max_segment = 0;
};

// SO_MAX_PACING_RATE and the socket buffers, then SO_BINDTODEVICE and bind() to the source when
// one is set (any socket type, before connect).
Status apply_connect_options(NativeSocket socket, const ConnectOptions& options);

// A sender retries a refused data or control connect this long after the refusal, until its
// --connect-timeout: the receiver may not be listening yet. NTttcp tries 100 times, 100 ms apart.
inline constexpr std::chrono::milliseconds refused_connect_retry_pause{100};

// Starts a non-blocking connect; the caller waits for writability (many at once).
Expected<UniqueSocket> start_connect_tcp(const SocketAddress& remote,
                                         const ConnectOptions& options);

// After writability: the connect's outcome ("127.0.0.1:5001: connection refused").
Status finish_connect(NativeSocket socket, const SocketAddress& remote);

// Blocking connect bounded by `timeout` (used by the control plane).
Expected<UniqueSocket> connect_tcp(const SocketAddress& remote, const ConnectOptions& options,
                                   std::chrono::milliseconds timeout);

Status set_nonblocking(NativeSocket socket, bool on);
// SO_SNDBUF and SO_RCVBUF as the kernel keeps them (Linux: double what was asked); 0 when
// unreadable.
std::pair<int64_t, int64_t> socket_buffer_sizes(NativeSocket socket);
// A listener that hands over a connection only once its first bytes came (Linux: up to 30 s,
// TCP_DEFER_ACCEPT), so a preamble can be read at accept without waiting. Windows: nothing.
Status defer_accept_until_data(NativeSocket listener);

// A non-blocking, close-on-exec TCP socket of `family`, not bound yet.
Expected<UniqueSocket> open_tcp_socket(int family);

// UDP for a control plane that makes its data sockets itself (the iperf3 dialect): a
// non-blocking UDP socket bound to `address` that another may share (SO_REUSEADDR: a connected
// one takes its peer's datagrams, the unconnected one the rest); a non-blocking one of
// `family`, unbound; and connect() of a UDP socket to its one peer. Errors: the reason alone.
Expected<UniqueSocket> bind_udp(const SocketAddress& address);
// TCP_MAXSEG of a connected TCP socket (iperf3 sizes its UDP datagrams by it); 0: unknown
// (Windows: not read).
uint32_t tcp_max_segment(NativeSocket socket);
Expected<UniqueSocket> open_udp_socket(int family);
Status connect_udp(NativeSocket socket, const SocketAddress& peer);

// SO_BINDTODEVICE to the interface owning `source` (Linux). Without CAP_NET_RAW it is skipped:
// binding the address still selects the interface. Windows has no such option: ok().
// Error: "cannot bind to device eth1 (owner of -a 10.0.0.1): <reason>".
Status bind_to_interface_of(NativeSocket socket, const SocketAddress& source);

// bind() to a local source address (with SO_REUSEADDR on Linux). Error: the reason alone.
Status bind_source_address(NativeSocket socket, const SocketAddress& source);

// Binds a listener to `address`: SO_REUSEADDR on Linux, SO_EXCLUSIVEADDRUSE on Windows (whose
// SO_REUSEADDR would let a second listener take the port), IPV6_V6ONLY for IPv6. Error: the
// reason alone ("address already in use").
Status bind_listener(NativeSocket socket, const SocketAddress& address);

// Whether `source` (address and port) can be bound by a new TCP or UDP socket now, without
// SO_REUSEADDR: a port held by a listener, a connection or one in TIME_WAIT is not free. The
// probe socket is closed again; a sender choosing its source ports asks before it binds them.
bool source_port_free(const SocketAddress& source, bool udp);

// The range the kernel takes ephemeral ports from (Linux: net.ipv4.ip_local_port_range;
// Windows: the dynamic range's default, 49152..65535).
std::pair<uint16_t, uint16_t> ephemeral_port_range();

// SO_ERROR: the outcome of a finished non-blocking connect (0 = connected).
int pending_socket_error(NativeSocket socket);

}  // namespace xttcp
