// read_tcp_info on a real loopback connection made here.
#include "engine/stats/tcp_info.hh"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include <fmt/format.h>

namespace xttcp {
namespace {

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

void set_timeouts(int fd) {
  timeval five_seconds{5, 0};  // no test may hang on a socket
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &five_seconds, sizeof five_seconds);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &five_seconds, sizeof five_seconds);
}

uint16_t port_of(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  return address.ss_family == AF_INET ? ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port)
                                      : ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port);
}

// Connects a client to a listener on the loopback address of `family`, moves some bytes both
// ways, and checks what read_tcp_info says about each end.
void check_loopback(int family) {
  Fd listener(::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_GE(listener.fd, 0) << std::strerror(errno);
  sockaddr_storage address{};
  socklen_t length = 0;
  if (family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&address);
    in->sin_family = AF_INET;
    in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    length = sizeof *in;
  } else {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&address);
    in6->sin6_family = AF_INET6;
    in6->sin6_addr = in6addr_loopback;
    length = sizeof *in6;
  }
  if (::bind(listener.fd, reinterpret_cast<sockaddr*>(&address), length) != 0) {
    GTEST_SKIP() << "no loopback for this family: " << std::strerror(errno);
  }
  ASSERT_EQ(::listen(listener.fd, 1), 0);
  uint16_t server_port = port_of(listener.fd);
  if (family == AF_INET) {
    reinterpret_cast<sockaddr_in*>(&address)->sin_port = htons(server_port);
  } else {
    reinterpret_cast<sockaddr_in6*>(&address)->sin6_port = htons(server_port);
  }

  Fd client(::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_GE(client.fd, 0);
  set_timeouts(client.fd);
  ASSERT_EQ(::connect(client.fd, reinterpret_cast<sockaddr*>(&address), length), 0)
      << std::strerror(errno);
  Fd server(::accept(listener.fd, nullptr, nullptr));  // the connection is already queued
  ASSERT_GE(server.fd, 0);
  set_timeouts(server.fd);

  char buffer[65536];
  std::memset(buffer, 'A', sizeof buffer);
  ASSERT_EQ(::send(client.fd, buffer, sizeof buffer, 0), static_cast<ssize_t>(sizeof buffer));
  size_t received = 0;
  while (received < sizeof buffer) {
    ssize_t n = ::recv(server.fd, buffer, sizeof buffer - received, 0);
    ASSERT_GT(n, 0) << std::strerror(errno);
    received += static_cast<size_t>(n);
  }

  const std::string host = family == AF_INET ? "127.0.0.1" : "[::1]";
  uint16_t client_port = port_of(client.fd);
  ConnectionStats sender = read_tcp_info(client.fd);
  EXPECT_EQ(sender.local, fmt::format("{}:{}", host, client_port));
  EXPECT_EQ(sender.remote, fmt::format("{}:{}", host, server_port));
  EXPECT_GT(sender.snd_cwnd, 0u);
  EXPECT_GT(sender.pmtu, 0u);
  EXPECT_EQ(sender.bytes, 0u) << "bytes are the caller's to fill";

  ConnectionStats receiver = read_tcp_info(server.fd);
  EXPECT_EQ(receiver.local, fmt::format("{}:{}", host, server_port));
  EXPECT_EQ(receiver.remote, fmt::format("{}:{}", host, client_port));

  // The interval figures' source: what TCP itself counted on each end.
  const std::optional<TcpSample> got = read_tcp_sample(server.fd);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->bytes_received, sizeof buffer);
  const std::optional<TcpSample> sent = read_tcp_sample(client.fd);
  ASSERT_TRUE(sent.has_value());
  EXPECT_LE(sent->bytes_acked, sizeof buffer);  // the last ACK may still be on its way
  EXPECT_GT(sent->snd_cwnd, 0u);
  EXPECT_GT(sent->busy_us + sent->bytes_acked, 0u);
}

TEST(ReadTcpInfo, Ipv4Loopback) { check_loopback(AF_INET); }

TEST(ReadTcpInfo, Ipv6Loopback) { check_loopback(AF_INET6); }

TEST(ReadTcpInfo, NotASocketGivesEmptyRecord) {
  ConnectionStats stats = read_tcp_info(-1);
  EXPECT_EQ(stats.local, "");
  EXPECT_EQ(stats.remote, "");
  EXPECT_EQ(stats.rtt_us, 0u);
  EXPECT_EQ(stats.snd_cwnd, 0u);
}

TEST(ReadTcpSample, NotASocketGivesNothing) { EXPECT_FALSE(read_tcp_sample(-1).has_value()); }

TEST(ReadTcpInfo, UnconnectedSocketHasNoRemote) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_GE(fd.fd, 0);
  ConnectionStats stats = read_tcp_info(fd.fd);
  EXPECT_EQ(stats.remote, "");
}

}  // namespace
}  // namespace xttcp
