// io_backends/dpdk/frame: MAC parsing, the frames the dpdk sender builds (IPv4 and IPv6, checked
// against independent sums), the incremental UDP checksum of stamped headers, parsing, ARP
// requests and answers, IPv6 neighbour solicitations and advertisements, --rr responses made
// in place from requests.
#include "io_backends/dpdk/frame.hh"

#include <gtest/gtest.h>

#include <cstring>

#include "engine/udp/datagram_header.hh"

namespace xttcp::frame {
namespace {

UdpEndpoints endpoints() {
  UdpEndpoints e;
  e.source_mac = {0x02, 0, 0, 0, 0, 1};
  e.destination_mac = {0x02, 0, 0, 0, 0, 2};
  e.source_ip = 0x0a000001;       // 10.0.0.1
  e.destination_ip = 0x0a000002;  // 10.0.0.2
  e.source_port = 49152;
  e.destination_port = 5001;
  return e;
}

TEST(Mac, ParsesAndFormats) {
  auto mac = parse_mac("02:AB:cd:00:10:ff");
  ASSERT_TRUE(mac);
  EXPECT_EQ(to_string(*mac), "02:ab:cd:00:10:ff");
  EXPECT_TRUE(parse_mac("02-ab-cd-00-10-ff"));
  for (const char* bad : {"", "02:ab:cd:00:10", "02:ab:cd:00:10:fg", "02:ab:cd:00:10:ff:00"})
    EXPECT_FALSE(parse_mac(bad)) << bad;
}

TEST(Frame, HeadersAndIpv4Checksum) {
  const std::vector<uint8_t> f = build_udp_frame(endpoints(), 100, 'B');
  ASSERT_EQ(f.size(), headers_bytes + 100);
  EXPECT_EQ(f[12], 0x08);
  EXPECT_EQ(f[13], 0x00);
  // A correct IPv4 header sums to 0xffff with its checksum included.
  EXPECT_EQ(fold(add_words(0, f.data() + ethernet_bytes, ipv4_bytes)), 0xffff);
  EXPECT_EQ(f[ethernet_bytes + 2] << 8 | f[ethernet_bytes + 3], 128);  // total length
  EXPECT_EQ(f.back(), 'B');
}

TEST(Frame, ShortFramesArePaddedToTheMinimum) {
  const std::vector<uint8_t> f = build_udp_frame(endpoints(), 1, 'B');
  EXPECT_EQ(f.size(), min_frame_bytes);
  auto view = parse_udp(f.data(), f.size());
  ASSERT_TRUE(view);
  EXPECT_EQ(view->payload_length, 1u);  // the padding is not payload
}

TEST(Frame, UdpChecksumVerifies) {
  std::vector<uint8_t> f = build_udp_frame(endpoints(), 333, 'B');  // odd length too
  const uint16_t sum = udp_checksum(f.data());
  f[udp_checksum_offset] = static_cast<uint8_t>(sum >> 8);
  f[udp_checksum_offset + 1] = static_cast<uint8_t>(sum);
  // Receiver's check: pseudo-header + whole UDP datagram (checksum included) folds to 0xffff.
  const uint8_t* ip = f.data() + ethernet_bytes;
  uint32_t total = add_words(0, ip + 12, 8) + 17 + 8 + 333;
  total = add_words(total, ip + ipv4_bytes, 8 + 333);
  EXPECT_EQ(fold(total), 0xffff);
}

TEST(Frame, IncrementalChecksumMatchesAFullOne) {
  std::vector<uint8_t> f = build_udp_frame(endpoints(), 1000, 'B');
  udp::encode(udp::DatagramHeader{0x00100007, 0, 0}, f.data() + payload_offset);
  const uint32_t base = udp_checksum_sum(f.data());
  const uint32_t sequence = 0xfffe1234;
  const uint64_t time_ns = 0x0123456789abcdefull;
  udp::stamp(f.data() + payload_offset, sequence, time_ns);
  const uint32_t stamped =
      (sequence >> 16) + (sequence & 0xffff) + static_cast<uint32_t>(time_ns >> 48) +
      static_cast<uint32_t>((time_ns >> 32) & 0xffff) +
      static_cast<uint32_t>((time_ns >> 16) & 0xffff) + static_cast<uint32_t>(time_ns & 0xffff);
  EXPECT_EQ(fold(base + stamped), fold(udp_checksum_sum(f.data())));
}

TEST(Frame, ParsesWhatItBuilds) {
  const std::vector<uint8_t> f = build_udp_frame(endpoints(), 64, 'x');
  auto view = parse_udp(f.data(), f.size());
  ASSERT_TRUE(view);
  EXPECT_EQ(view->source_ip, 0x0a000001u);
  EXPECT_EQ(view->destination_ip, 0x0a000002u);
  EXPECT_EQ(view->source_port, 49152);
  EXPECT_EQ(view->destination_port, 5001);
  EXPECT_EQ(view->payload_length, 64u);
  EXPECT_EQ(view->payload, f.data() + payload_offset);
}

TEST(Frame, RefusesWhatIsNotPlainIpv4Udp) {
  std::vector<uint8_t> f = build_udp_frame(endpoints(), 64, 'x');
  EXPECT_FALSE(parse_udp(f.data(), 30));  // truncated
  std::vector<uint8_t> fragment = f;
  fragment[ethernet_bytes + 6] |= 0x20;  // MF
  EXPECT_FALSE(parse_udp(fragment.data(), fragment.size()));
  std::vector<uint8_t> tcp = f;
  tcp[ethernet_bytes + 9] = 6;
  EXPECT_FALSE(parse_udp(tcp.data(), tcp.size()));
  std::vector<uint8_t> long_ip = f;
  long_ip[ethernet_bytes + 2] = 0x10;  // total length beyond the frame
  EXPECT_FALSE(parse_udp(long_ip.data(), long_ip.size()));
}

TEST(Arp, AnswersARequestForItsAddress) {
  std::vector<uint8_t> f(60, 0);
  const uint8_t request[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0,
                             0,    9,    0x08, 0x06,                              // Ethernet
                             0,    1,    0x08, 0,    6,    4,    0,    1,         // request
                             0x02, 0,    0,    0,    0,    9,    10,   0, 0, 9,   // sender
                             0,    0,    0,    0,    0,    0,    10,   0, 0, 2};  // target
  std::copy(std::begin(request), std::end(request), f.begin());
  const MacAddress mine{0x02, 0, 0, 0, 0, 2};
  EXPECT_FALSE(answer_arp(f.data(), f.size(), 0x0a000003, mine));  // not ours
  ASSERT_TRUE(answer_arp(f.data(), f.size(), 0x0a000002, mine));
  EXPECT_EQ(f[21], 2);    // reply
  EXPECT_EQ(f[0], 0x02);  // to the asker
  EXPECT_EQ(f[5], 9);
  EXPECT_EQ(f[27], 2);  // sender MAC: ours
  EXPECT_EQ(f[31], 2);  // sender IP: ours
  EXPECT_EQ(f[37], 9);  // target: the asker
  EXPECT_EQ(f[41], 9);
}

Ipv6Address v6(uint8_t last) {
  return {0xfd, 0, 0x02, 0x13, 0, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34, 0x56, last};
}

UdpEndpoints endpoints6() {
  UdpEndpoints e = endpoints();
  e.ipv6 = true;
  e.source_ip6 = v6(1);
  e.destination_ip6 = v6(2);
  return e;
}

TEST(Frame6, HeadersChecksumAndParse) {
  std::vector<uint8_t> f = build_udp_frame(endpoints6(), 333, 'B');
  ASSERT_EQ(f.size(), headers6_bytes + 333);
  EXPECT_EQ(f[12], 0x86);
  EXPECT_EQ(f[13], 0xdd);
  EXPECT_EQ(f[ethernet_bytes] >> 4, 6);
  EXPECT_EQ(f[ethernet_bytes + 4] << 8 | f[ethernet_bytes + 5], 8 + 333);  // payload length
  EXPECT_EQ(f[ethernet_bytes + 6], 17);
  const uint16_t sum = udp_checksum(f.data());
  const std::size_t at = udp_offset(true) + 6;
  f[at] = static_cast<uint8_t>(sum >> 8);
  f[at + 1] = static_cast<uint8_t>(sum);
  // Receiver's check (RFC 8200 8.1): pseudo-header + the whole datagram folds to 0xffff.
  const uint8_t* ip = f.data() + ethernet_bytes;
  uint32_t total = add_words(0, ip + 8, 32) + 17 + 8 + 333;
  total = add_words(total, ip + ipv6_bytes, 8 + 333);
  EXPECT_EQ(fold(total), 0xffff);
  auto view = parse_udp(f.data(), f.size());
  ASSERT_TRUE(view);
  EXPECT_TRUE(view->ipv6);
  EXPECT_EQ(0, std::memcmp(view->destination_ip6, v6(2).data(), 16));
  EXPECT_EQ(view->destination_port, 5001);
  EXPECT_EQ(view->payload_length, 333u);
  EXPECT_EQ(view->payload, f.data() + headers6_bytes);
  std::vector<uint8_t> other = f;
  other[ethernet_bytes + 6] = 0;  // a hop-by-hop header first: not taken
  EXPECT_FALSE(parse_udp(other.data(), other.size()));
  EXPECT_FALSE(parse_udp(f.data(), headers6_bytes + 10));  // truncated
}

TEST(Arp, RequestAndTheAnswerGiveTheMac) {
  const MacAddress mine{0x02, 0, 0, 0, 0, 1}, theirs{0x02, 0, 0, 0, 0, 2};
  std::vector<uint8_t> f = build_arp_request(mine, 0x0a000001, 0x0a000002);
  ASSERT_EQ(f.size(), min_frame_bytes);
  EXPECT_EQ(f[0], 0xff);
  EXPECT_FALSE(arp_sender_mac(f.data(), f.size(), 0x0a000002));  // our own request
  // The peer's answer (built by answer_arp, tested above) carries its MAC.
  ASSERT_TRUE(answer_arp(f.data(), f.size(), 0x0a000002, theirs));
  auto mac = arp_sender_mac(f.data(), f.size(), 0x0a000002);
  ASSERT_TRUE(mac);
  EXPECT_EQ(*mac, theirs);
  EXPECT_FALSE(arp_sender_mac(f.data(), f.size(), 0x0a000003));
}

TEST(Nd, SolicitationIsWellFormed) {
  const MacAddress mine{0x02, 0, 0, 0, 0, 1};
  const std::vector<uint8_t> f = build_neighbor_solicitation(mine, v6(1), v6(2));
  ASSERT_EQ(f.size(), 86u);
  const MacAddress group{0x33, 0x33, 0xff, 0x34, 0x56, 2};
  EXPECT_TRUE(std::equal(group.begin(), group.end(), f.begin()));
  const uint8_t* ip = f.data() + ethernet_bytes;
  EXPECT_EQ(ip[7], 255);
  EXPECT_EQ(ip[24], 0xff);
  EXPECT_EQ(ip[25], 0x02);
  EXPECT_EQ(ip[39], 2);
  // A valid ICMPv6 checksum: pseudo-header + message (sum included) folds to 0xffff.
  uint32_t total = add_words(0, ip + 8, 32) + 58 + 32;
  total = add_words(total, ip + ipv6_bytes, 32);
  EXPECT_EQ(fold(total), 0xffff);
}

TEST(Nd, AnswersASolicitationAndTheAdvertisementGivesTheMac) {
  const MacAddress asker{0x02, 0, 0, 0, 0, 1}, mine{0x02, 0, 0, 0, 0, 2};
  std::vector<uint8_t> f = build_neighbor_solicitation(asker, v6(1), v6(2));
  f.resize(128);
  EXPECT_EQ(answer_neighbor_solicitation(f.data(), 86, f.size(), v6(3), mine), 0u);  // not ours
  EXPECT_EQ(answer_neighbor_solicitation(f.data(), 86, 60, v6(2), mine), 0u);        // no room
  const std::size_t length = answer_neighbor_solicitation(f.data(), 86, f.size(), v6(2), mine);
  ASSERT_EQ(length, 86u);
  EXPECT_TRUE(std::equal(asker.begin(), asker.end(), f.begin()));  // to the asker
  const uint8_t* ip = f.data() + ethernet_bytes;
  EXPECT_EQ(0, std::memcmp(ip + 8, v6(2).data(), 16));   // from our address
  EXPECT_EQ(0, std::memcmp(ip + 24, v6(1).data(), 16));  // to the asker's
  EXPECT_EQ(ip[ipv6_bytes], 136);
  EXPECT_EQ(ip[ipv6_bytes + 4], 0x60);  // solicited, override
  uint32_t total = add_words(0, ip + 8, 32) + 58 + 32;
  total = add_words(total, ip + ipv6_bytes, 32);
  EXPECT_EQ(fold(total), 0xffff);
  auto mac = neighbor_advertisement_mac(f.data(), length, v6(2));
  ASSERT_TRUE(mac);
  EXPECT_EQ(*mac, mine);
  EXPECT_FALSE(neighbor_advertisement_mac(f.data(), length, v6(1)));
  // A solicitation is not an advertisement, and DAD (from ::) is not answered.
  std::vector<uint8_t> ns = build_neighbor_solicitation(asker, v6(1), v6(2));
  EXPECT_FALSE(neighbor_advertisement_mac(ns.data(), ns.size(), v6(2)));
  std::vector<uint8_t> dad = build_neighbor_solicitation(asker, Ipv6Address{}, v6(2));
  EXPECT_EQ(answer_neighbor_solicitation(dad.data(), dad.size(), dad.size(), v6(2), mine), 0u);
}

// The receiver's check of a frame's UDP checksum: the pseudo-header and the whole datagram,
// checksum included, fold to 0xffff.
bool udp_sum_verifies(const std::vector<uint8_t>& f, bool ipv6) {
  const uint8_t* ip = f.data() + ethernet_bytes;
  const uint8_t* udp = f.data() + udp_offset(ipv6);
  const uint32_t udp_length = uint32_t{udp[4]} << 8 | udp[5];
  uint32_t total = (ipv6 ? add_words(0, ip + 8, 32) : add_words(0, ip + 12, 8)) + 17 + udp_length;
  return fold(add_words(total, udp, udp_length)) == 0xffff;
}

std::vector<uint8_t> stamped_request(const UdpEndpoints& e, uint32_t payload, uint64_t stamp) {
  std::vector<uint8_t> f = build_udp_frame(e, payload, 'R');
  std::memcpy(f.data() + headers_size(e.ipv6), &stamp, 8);
  return f;
}

TEST(Response, SwapsEndsKeepsTheStampAndSetsTheSums) {
  const uint64_t stamp = 0x1122334455667788ull;
  std::vector<uint8_t> f = stamped_request(endpoints(), 64, stamp);
  f.resize(400);  // the mbuf's room
  const std::size_t length = turn_into_response(f.data(), headers_bytes + 64, f.size(), 200);
  ASSERT_EQ(length, headers_bytes + 200);
  f.resize(length);
  auto view = parse_udp(f.data(), f.size());
  ASSERT_TRUE(view);
  EXPECT_EQ(view->source_ip, 0x0a000002u);
  EXPECT_EQ(view->destination_ip, 0x0a000001u);
  EXPECT_EQ(view->source_port, 5001);
  EXPECT_EQ(view->destination_port, 49152);
  EXPECT_EQ(view->payload_length, 200u);
  uint64_t echoed;
  std::memcpy(&echoed, view->payload, 8);
  EXPECT_EQ(echoed, stamp);
  EXPECT_EQ(view->payload[8], 0);  // past the stamp: zeros, not the request's bytes
  EXPECT_EQ(view->payload[199], 0);
  EXPECT_EQ((MacAddress{f[0], f[1], f[2], f[3], f[4], f[5]}), (MacAddress{0x02, 0, 0, 0, 0, 1}));
  EXPECT_EQ((MacAddress{f[6], f[7], f[8], f[9], f[10], f[11]}), (MacAddress{0x02, 0, 0, 0, 0, 2}));
  EXPECT_EQ(fold(add_words(0, f.data() + ethernet_bytes, ipv4_bytes)), 0xffff);  // IPv4 header
  EXPECT_TRUE(udp_sum_verifies(f, false));
}

TEST(Response, ShorterThanTheRequestIsPaddedToTheMinimum) {
  std::vector<uint8_t> f = stamped_request(endpoints(), 500, 7);
  const std::size_t length = turn_into_response(f.data(), f.size(), f.size(), 8);
  ASSERT_EQ(length, min_frame_bytes);
  f.resize(length);
  auto view = parse_udp(f.data(), f.size());
  ASSERT_TRUE(view);
  EXPECT_EQ(view->payload_length, 8u);
  EXPECT_EQ(f[headers_bytes + 8], 0);  // the padding
  EXPECT_TRUE(udp_sum_verifies(f, false));
}

TEST(Response, Ipv6) {
  std::vector<uint8_t> f = stamped_request(endpoints6(), 64, 42);
  const std::size_t length = turn_into_response(f.data(), f.size(), f.size(), 64);
  ASSERT_EQ(length, headers6_bytes + 64);
  auto view = parse_udp(f.data(), length);
  ASSERT_TRUE(view);
  EXPECT_EQ(0, std::memcmp(view->destination_ip6, v6(1).data(), 16));
  EXPECT_EQ(view->destination_port, 49152);
  EXPECT_EQ(view->payload[0], 42);
  EXPECT_TRUE(udp_sum_verifies(f, true));
}

TEST(Response, RefusesWhatItCannotAnswer) {
  std::vector<uint8_t> f = stamped_request(endpoints(), 64, 1);
  const std::vector<uint8_t> before = f;
  EXPECT_EQ(turn_into_response(f.data(), f.size(), f.size(), 2000), 0u);  // no room
  std::vector<uint8_t> arp = build_arp_request({0x02, 0, 0, 0, 0, 1}, 0x0a000001, 0x0a000002);
  EXPECT_EQ(turn_into_response(arp.data(), arp.size(), arp.size(), 8), 0u);
  f[ethernet_bytes] = 0x46;  // IPv4 options: not answered
  EXPECT_EQ(turn_into_response(f.data(), f.size(), f.size(), 8), 0u);
  f[ethernet_bytes] = 0x45;
  EXPECT_EQ(f, before);
}

}  // namespace
}  // namespace xttcp::frame
