#include "io_backends/common/udp_socket.hh"

#include <netinet/udp.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103  // include/uapi/linux/udp.h, Linux 4.18
#endif
#ifndef UDP_GRO
#define UDP_GRO 104  // Linux 5.0
#endif

namespace xttcp {

namespace {

std::string errno_text(int err) { return std::strerror(err); }

}  // namespace

Expected<UniqueFd> open_udp_sender(const SocketAddress& remote, const ConnectOptions& options,
                                   bool connected) {
  UniqueFd fd(socket(remote.family(), SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return fail("socket: " + errno_text(errno));
  if (Status applied = apply_connect_options(fd.get(), options); !applied) return applied.error();
  if (connected && connect(fd.get(), remote.get(), remote.length) != 0)
    return fail(remote.to_string() + ": " + errno_text(errno));
  enlarge_buffer(fd.get(), false, 4 << 20);
  return fd;
}

Expected<UniqueFd> open_udp_receiver(const SocketAddress& local, UdpReceiveTimes times,
                                     UdpPort port) {
  UniqueFd fd(socket(local.family(), SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return fail("socket: " + errno_text(errno));
  int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (port == UdpPort::shared &&
      setsockopt(fd.get(), SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0)
    return fail("port " + std::to_string(local.port()) + ": SO_REUSEPORT: " + errno_text(errno));
  if (local.family() == AF_INET6) setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  if (bind(fd.get(), local.get(), local.length) != 0)
    return fail("port " + std::to_string(local.port()) + ": " + errno_text(errno));
  enlarge_buffer(fd.get(), true, 16 << 20);
  // The kernel's receive time of each packet (a cmsg), for jitter. Not for --rr: the request
  // carries its own time, and stamping every packet adds ~0.4 us to a loopback round trip.
  if (times == UdpReceiveTimes::kernel)
    setsockopt(fd.get(), SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
  return fd;
}

bool enable_udp_gso(int fd, uint32_t segment) {
  const int size = static_cast<int>(segment);
  return setsockopt(fd, SOL_UDP, UDP_SEGMENT, &size, sizeof size) == 0;
}

bool enable_udp_gro(int fd) {
  int one = 1;
  return setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof one) == 0;
}

bool disable_udp_gro(int fd) {
  int zero = 0;
  return setsockopt(fd, SOL_UDP, UDP_GRO, &zero, sizeof zero) == 0;
}

void enlarge_buffer(int fd, bool receive, int bytes) {
  if (setsockopt(fd, SOL_SOCKET, receive ? SO_RCVBUFFORCE : SO_SNDBUFFORCE, &bytes, sizeof bytes) !=
      0)
    setsockopt(fd, SOL_SOCKET, receive ? SO_RCVBUF : SO_SNDBUF, &bytes, sizeof bytes);
}

uint32_t path_mtu(int fd, bool ipv6) {
  int mtu = 0;
  socklen_t length = sizeof mtu;
  const int rc = ipv6 ? getsockopt(fd, IPPROTO_IPV6, IPV6_MTU, &mtu, &length)
                      : getsockopt(fd, IPPROTO_IP, IP_MTU, &mtu, &length);
  return rc == 0 && mtu > 0 ? static_cast<uint32_t>(mtu) : 0;
}

uint32_t choose_gso(int fd, const SocketAddress& remote, uint32_t datagram, bool wanted,
                    std::string& note) {
  note.clear();
  const uint32_t segments = wanted ? gso_segments_for(datagram) : 1;
  if (segments <= 1) return 0;
  const bool ipv6 = remote.family() == AF_INET6;
  const uint32_t mtu = path_mtu(fd, ipv6);
  const uint32_t on_wire = datagram + 8 + (ipv6 ? 40 : 20);
  if (mtu > 0 && on_wire > mtu) {
    note = "UDP: GSO off: " + std::to_string(datagram) + "-byte datagrams need " +
           std::to_string(on_wire) + " bytes on the wire, above the path MTU " +
           std::to_string(mtu) + " (they leave as IP fragments)";
    return 0;
  }
  if (!enable_udp_gso(fd, datagram)) {
    note = "UDP: the kernel refused UDP_SEGMENT (GSO); one datagram per send";
    return 0;
  }
  return segments;
}

uint32_t gso_segments_for(uint32_t segment) {
  constexpr uint32_t max_segments = 64;           // UDP_MAX_SEGMENTS
  constexpr uint32_t max_bytes = 65535 - 8 - 40;  // one UDP length field, IPv6's header
  if (segment == 0) return 1;
  return std::clamp<uint32_t>(max_bytes / segment, 1, max_segments);
}

}  // namespace xttcp
