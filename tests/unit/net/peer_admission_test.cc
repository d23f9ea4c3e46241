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

// One port: a data connection counts only if its cookie is an open session's, and that session
// is welcome now (no test runs, or it is the running test's sender).
TEST(PeerAdmission, OnePortStreamsNeedAWelcomeSession) {
  PeerAdmission door(AddressFilter(), 0);
  door.require_sessions();
  const std::array<uint8_t, 16> handed{7, 7, 7}, guessed{9};
  door.session_opened(3, handed);
  int asked = 0;
  const auto welcome_three = [&asked](int session) { return ++asked, session == 3; };
  const auto nobody = [](int) { return false; };
  EXPECT_EQ(door.admit_stream(peer_at("127.0.0.1"), handed, welcome_three), 3);
  EXPECT_EQ(asked, 1);
  EXPECT_FALSE(door.admit_stream(peer_at("127.0.0.1"), guessed, welcome_three));
  EXPECT_EQ(asked, 1);  // no session named: nobody is asked
  EXPECT_FALSE(door.admit_stream(peer_at("127.0.0.1"), handed, nobody));
  door.session_closed(3);
  EXPECT_FALSE(door.admit_stream(peer_at("127.0.0.1"), handed, welcome_three));
  EXPECT_EQ(door.refusals().data, 3u);
  EXPECT_EQ(door.refusals().unauthenticated, 3u);
}

}  // namespace
}  // namespace xttcp
