#include "engine/net/peer_admission.hh"

#include <gtest/gtest.h>

namespace xttcp {
namespace {

SocketAddress peer_at(const std::string& host, uint16_t port = 40000) {
  auto address = resolve(host, port, host.find(':') != std::string::npos);
  EXPECT_TRUE(address) << host;
  return *address;
}

using Door = PeerAdmission::Door;

TEST(PeerAdmission, OpenDoorAdmitsEveryoneAndCountsNothing) {
  PeerAdmission door({}, 0);
  EXPECT_TRUE(door.open());
  EXPECT_TRUE(door.admit_connection(peer_at("203.0.113.1"), Door::data));
  EXPECT_TRUE(door.admit_datagram(peer_at("203.0.113.1")));
  EXPECT_EQ(door.refusals().total(), 0u);
}

TEST(PeerAdmission, AllowListRefusesAndCountsPerDoor) {
  PeerAdmission door(*AddressFilter::parse("127.0.0.2/32"), 0);
  EXPECT_FALSE(door.open());
  EXPECT_TRUE(door.admit_connection(peer_at("127.0.0.2"), Door::control));
  EXPECT_FALSE(door.admit_connection(peer_at("127.0.0.1"), Door::control));
  EXPECT_FALSE(door.admit_connection(peer_at("127.0.0.1"), Door::data));
  EXPECT_FALSE(door.admit_connection(peer_at("127.0.0.1"), Door::data));
  EXPECT_FALSE(door.admit_datagram(peer_at("127.0.0.3")));
  EXPECT_TRUE(door.admit_datagram(peer_at("127.0.0.2")));
  const auto refused = door.refusals();
  EXPECT_EQ(refused.control, 1u);
  EXPECT_EQ(refused.data, 2u);
  EXPECT_EQ(refused.datagrams, 1u);
  EXPECT_EQ(refused.over_max_clients, 0u);
}

TEST(PeerAdmission, MaxClientsCountsHostsNotConnections) {
  PeerAdmission door({}, 2);
  EXPECT_TRUE(door.admit_connection(peer_at("127.0.0.1", 1), Door::control));
  EXPECT_TRUE(door.admit_connection(peer_at("127.0.0.1", 2), Door::data));  // same host, other port
  EXPECT_TRUE(door.admit_connection(peer_at("::ffff:127.0.0.1"), Door::data));  // same host, mapped
  EXPECT_TRUE(door.admit_connection(peer_at("127.0.0.2"), Door::data));
  EXPECT_FALSE(door.admit_connection(peer_at("127.0.0.3"), Door::data));
  EXPECT_FALSE(door.admit_connection(peer_at("127.0.0.3"), Door::control));
  EXPECT_TRUE(door.admit_connection(peer_at("127.0.0.2", 9), Door::data));  // admitted ones stay
  const auto refused = door.refusals();
  EXPECT_EQ(refused.over_max_clients, 2u);
  EXPECT_EQ(refused.data, 1u);
  EXPECT_EQ(refused.control, 1u);
}

TEST(PeerAdmission, AllowIsCheckedBeforeMaxClients) {
  PeerAdmission door(*AddressFilter::parse("127.0.0.0/8"), 1);
  EXPECT_FALSE(
      door.admit_connection(peer_at("10.0.0.1"), Door::data));  // not allowed: no seat taken
  EXPECT_TRUE(door.admit_connection(peer_at("127.0.0.5"), Door::data));
  EXPECT_EQ(door.refusals().over_max_clients, 0u);
}

}  // namespace
}  // namespace xttcp
