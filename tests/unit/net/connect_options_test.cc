// ConnectOptions::max_segment (iperf3's -M): set before the SYN, a connection's segments keep to
// it; without it, loopback's are far larger.
#include <gtest/gtest.h>

#include <chrono>

#include "engine/net/address.hh"
#include "engine/net/socket_io.hh"
#include "engine/net/socket_setup.hh"

namespace xttcp {
namespace {

TEST(ConnectOptions, MaxSegmentHoldsTheConnectionsSegments) {
  auto any = resolve("127.0.0.1", 0, false);
  ASSERT_TRUE(any) << any.error().message;
  auto listener = listen_tcp(*any, 4);
  ASSERT_TRUE(listener) << listener.error().message;
  auto port = local_address_of(listener->get());
  ASSERT_TRUE(port) << port.error().message;
  ConnectOptions options;
  options.max_segment = 1000;
  auto held = connect_tcp(*port, options, std::chrono::seconds(10));
#ifdef _WIN32
  if (!held) GTEST_SKIP() << "this Winsock refuses TCP_MAXSEG: " << held.error().message;
#endif
  ASSERT_TRUE(held) << held.error().message;
  const uint32_t mss = tcp_max_segment(held->get());
  if (mss == 0) GTEST_SKIP() << "TCP_MAXSEG is not read on this platform";
  EXPECT_LE(mss, 1000u);
  auto plain = connect_tcp(*port, ConnectOptions{}, std::chrono::seconds(10));
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_GT(tcp_max_segment(plain->get()), 1000u) << "loopback's own segments are larger";
}

}  // namespace
}  // namespace xttcp
