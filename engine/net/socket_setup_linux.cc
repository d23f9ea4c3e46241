// Linux: socket set-up with fcntl, SO_BINDTODEVICE, SO_MAX_PACING_RATE and poll(2).
#include "engine/net/socket_setup.hh"

#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include <fmt/format.h>

namespace xttcp {

namespace {

std::string errno_text(int err) { return std::strerror(err); }

bool same_host(const sockaddr* a, const SocketAddress& b) {
  if (a->sa_family != b.family()) return false;
  if (b.family() == AF_INET6)
    return std::memcmp(&reinterpret_cast<const sockaddr_in6*>(a)->sin6_addr,
                       &reinterpret_cast<const sockaddr_in6*>(&b.storage)->sin6_addr,
                       sizeof(in6_addr)) == 0;
  return reinterpret_cast<const sockaddr_in*>(a)->sin_addr.s_addr ==
         reinterpret_cast<const sockaddr_in*>(&b.storage)->sin_addr.s_addr;
}

}  // namespace

std::optional<std::string> interface_of(const SocketAddress& address) {
  if (address.is_any()) return std::nullopt;
  // getifaddrs() dumps every address over netlink: once per address per thread, not per socket.
  struct Known {
    SocketAddress address;
    std::optional<std::string> name;
  };
  thread_local std::vector<Known> known;
  for (const Known& k : known)
    if (same_host(k.address.get(), address)) return k.name;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return std::nullopt;
  std::optional<std::string> name;
  for (ifaddrs* i = list; i != nullptr && !name; i = i->ifa_next)
    if (i->ifa_addr != nullptr && same_host(i->ifa_addr, address)) name = i->ifa_name;
  freeifaddrs(list);
  if (known.size() < 4096) known.push_back({address, name});
  return name;
}

Status defer_accept_until_data(NativeSocket listener) {
  const int seconds = 30;
  if (::setsockopt(listener, IPPROTO_TCP, TCP_DEFER_ACCEPT, &seconds, sizeof seconds) != 0)
    return fail(std::string("TCP_DEFER_ACCEPT: ") + std::strerror(errno));
  return ok();
}

Status set_nonblocking(NativeSocket fd, bool on) {
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0) return fail("fcntl: " + errno_text(errno));
  flags = on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
  if (fcntl(fd, F_SETFL, flags) < 0) return fail("fcntl: " + errno_text(errno));
  return ok();
}

Expected<UniqueSocket> listen_tcp(const SocketAddress& address, int backlog) {
  const std::string where = "port " + std::to_string(address.port());
  UniqueSocket fd(socket(address.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return fail(where + ": socket: " + errno_text(errno));
  int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (address.family() == AF_INET6)
    setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  if (bind(fd.get(), address.get(), address.length) != 0)
    return fail(where + " on " + address.host() + ": " + errno_text(errno));
  if (listen(fd.get(), backlog) != 0) return fail(where + ": listen: " + errno_text(errno));
  return fd;
}

Expected<UniqueSocket> open_udp_socket(int family) {
  UniqueSocket fd(socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return fail("socket: " + errno_text(errno));
  return fd;
}

Expected<UniqueSocket> bind_udp(const SocketAddress& address) {
  auto fd = open_udp_socket(address.family());
  if (!fd) return fd;
  if (Status bound = bind_listener(fd->get(), address); !bound) return bound.error();
  return fd;
}

uint32_t tcp_max_segment(NativeSocket fd) {
  int mss = 0;
  socklen_t length = sizeof mss;
  if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &length) != 0 || mss < 0) return 0;
  return static_cast<uint32_t>(mss);
}

Status connect_udp(NativeSocket fd, const SocketAddress& peer) {
  if (connect(fd, peer.get(), peer.length) != 0) return fail(errno_text(errno));
  return ok();
}

Status apply_connect_options(NativeSocket fd, const ConnectOptions& options) {
  int one = 1;
  if (options.max_pacing_rate_bytes > 0) {
    // The kernel takes an unsigned 32-bit value here on every version we support.
    uint32_t rate =
        static_cast<uint32_t>(std::min<uint64_t>(options.max_pacing_rate_bytes, UINT32_MAX));
    setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &rate, sizeof rate);
  }
  if (options.socket_buffers > 0) {
    const int size = static_cast<int>(std::min<uint64_t>(options.socket_buffers, INT32_MAX));
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size) != 0)
      return fail(
          fmt::format("cannot set the socket buffers to {} bytes: {}", size, errno_text(errno)));
  }
  if (options.source) {
    if (options.bind_to_device) {
      if (auto device = interface_of(*options.source))
        setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, device->c_str(),
                   static_cast<socklen_t>(device->size()));
    }
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (options.port_at_connect && options.source->port() == 0)
      setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    if (bind(fd, options.source->get(), options.source->length) != 0)
      return fail("cannot bind source " + options.source->to_string() + ": " + errno_text(errno));
  }
  return ok();
}

Expected<UniqueSocket> start_connect_tcp(const SocketAddress& remote,
                                         const ConnectOptions& options) {
  UniqueSocket fd(socket(remote.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return fail("socket: " + errno_text(errno));
  int one = 1;
  if (options.no_delay) setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (options.max_segment > 0) {
    const int mss = static_cast<int>(options.max_segment);
    if (setsockopt(fd.get(), IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof mss) != 0)
      return fail(
          fmt::format("cannot set the segment size to {} bytes: {}", mss, errno_text(errno)));
  }
  if (Status applied = apply_connect_options(fd.get(), options); !applied) return applied.error();
  if (connect(fd.get(), remote.get(), remote.length) != 0 && errno != EINPROGRESS)
    return fail(remote.to_string() + ": " + errno_text(errno));
  return fd;
}

Status finish_connect(NativeSocket fd, const SocketAddress& remote) {
  int err = 0;
  socklen_t len = sizeof err;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
  if (err != 0) return fail(remote.to_string() + ": " + errno_text(err));
  return ok();
}

Expected<UniqueSocket> connect_tcp(const SocketAddress& remote, const ConnectOptions& options,
                                   std::chrono::milliseconds timeout) {
  auto fd = start_connect_tcp(remote, options);
  if (!fd) return fd.error();
  pollfd p{fd->get(), POLLOUT, 0};
  int rc;
  do {
    rc = poll(&p, 1, static_cast<int>(timeout.count()));
  } while (rc < 0 && errno == EINTR);
  if (rc == 0)
    return fail(remote.to_string() + ": no answer within " +
                std::to_string(timeout.count() / 1000.0).substr(0, 4) + " s");
  if (rc < 0) return fail(remote.to_string() + ": poll: " + errno_text(errno));
  if (auto done = finish_connect(fd->get(), remote); !done) return done.error();
  return std::move(*fd);
}

std::pair<int64_t, int64_t> socket_buffer_sizes(NativeSocket fd) {
  int send = 0, receive = 0;
  socklen_t length = sizeof send;
  if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &send, &length) != 0) send = 0;
  length = sizeof receive;
  if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive, &length) != 0) receive = 0;
  return {send, receive};
}

Expected<UniqueSocket> open_tcp_socket(int family) {
  UniqueSocket fd(socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return fail(socket_error_text(errno));
  return fd;
}

Status bind_to_interface_of(NativeSocket fd, const SocketAddress& source) {
  auto device = interface_of(source);
  if (!device) return ok();
  if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, device->c_str(),
                 static_cast<socklen_t>(device->size())) != 0 &&
      errno != EPERM)
    return fail(fmt::format("cannot bind to device {} (owner of -a {}): {}", *device, source.host(),
                            socket_error_text(errno)));
  return ok();
}

}  // namespace xttcp

namespace xttcp {

Status bind_listener(NativeSocket fd, const SocketAddress& address) {
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (address.family() == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  if (bind(fd, address.get(), address.length) != 0) return fail(socket_error_text(errno));
  return ok();
}

Status bind_source_address(NativeSocket fd, const SocketAddress& source) {
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, source.get(), source.length) != 0) return fail(socket_error_text(errno));
  return ok();
}

int pending_socket_error(NativeSocket fd) {
  int err = 0;
  socklen_t length = sizeof err;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &length) != 0) err = errno;
  return err;
}

bool source_port_free(const SocketAddress& source, bool udp) {
  const int fd = socket(source.family(), (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const bool bound = bind(fd, source.get(), source.length) == 0;
  close(fd);
  return bound;
}

std::pair<uint16_t, uint16_t> ephemeral_port_range() {
  std::pair<uint16_t, uint16_t> range{32768, 60999};  // the kernel's default
  if (FILE* file = std::fopen("/proc/sys/net/ipv4/ip_local_port_range", "r")) {
    unsigned low = 0, high = 0;
    if (std::fscanf(file, "%u %u", &low, &high) == 2 && low > 0 && low <= high && high <= 65535)
      range = {static_cast<uint16_t>(low), static_cast<uint16_t>(high)};
    std::fclose(file);
  }
  return range;
}

}  // namespace xttcp
