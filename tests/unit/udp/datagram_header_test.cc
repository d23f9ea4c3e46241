// Native UDP datagram header: byte layout, round trip, rejection of anything that is not ours.
#include "engine/udp/datagram_header.hh"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "hex.hh"

namespace xttcp::udp {
namespace {

const DatagramHeader known{0x01020304, 0xA0B0C0D0, 0x1122334455667788};

TEST(DatagramHeader, SizeIs24Bytes) { EXPECT_EQ(header_size, 24u); }

TEST(DatagramHeader, EncodesNetworkByteOrderLayout) {
  std::array<unsigned char, header_size> bytes{};
  bytes.fill(0xEE);  // encode must write every byte, zero flags and reserved included
  encode(known, bytes.data());
  //           magic    v f  rsvd flow_id  sequence send_time_ns
  EXPECT_EQ(test::hex(bytes.data(), bytes.size()),
            "58545544"
            "01"
            "00"
            "0000"
            "01020304"
            "a0b0c0d0"
            "1122334455667788");
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 4), "XTUD");
}

TEST(DatagramHeader, RoundTrips) {
  for (const DatagramHeader& header :
       {DatagramHeader{}, known, DatagramHeader{0xFFFFFFFF, 0xFFFFFFFF, ~uint64_t{0}},
        DatagramHeader{7, 0, 1}}) {
    std::array<unsigned char, header_size> bytes{};
    encode(header, bytes.data());
    DatagramHeader decoded{1, 2, 3};
    ASSERT_TRUE(decode(bytes.data(), bytes.size(), decoded));
    EXPECT_EQ(decoded, header);
  }
}

TEST(DatagramHeader, DecodesAtStartOfLongerDatagram) {
  std::vector<unsigned char> datagram(1472, 'x');
  encode(known, datagram.data());
  DatagramHeader decoded;
  ASSERT_TRUE(decode(datagram.data(), datagram.size(), decoded));
  EXPECT_EQ(decoded, known);
}

TEST(DatagramHeader, RejectsTooShort) {
  std::array<unsigned char, header_size> bytes{};
  encode(known, bytes.data());
  DatagramHeader decoded{1, 2, 3};
  EXPECT_FALSE(decode(bytes.data(), header_size - 1, decoded));
  EXPECT_FALSE(decode(bytes.data(), 0, decoded));
  EXPECT_FALSE(decode(nullptr, 0, decoded));
  EXPECT_EQ(decoded, (DatagramHeader{1, 2, 3}));  // untouched on failure
}

TEST(DatagramHeader, RejectsWrongMagic) {
  std::array<unsigned char, header_size> bytes{};
  encode(known, bytes.data());
  bytes[3] ^= 0x01;  // "XTUE"
  DatagramHeader decoded;
  EXPECT_FALSE(decode(bytes.data(), bytes.size(), decoded));
}

TEST(DatagramHeader, RejectsWrongVersion) {
  std::array<unsigned char, header_size> bytes{};
  encode(known, bytes.data());
  DatagramHeader decoded;
  for (unsigned char version : {0, 2, 255}) {
    bytes[4] = version;
    EXPECT_FALSE(decode(bytes.data(), bytes.size(), decoded)) << int(version);
  }
}

TEST(DatagramHeader, IgnoresFlagsReadsToken) {
  std::array<unsigned char, header_size> bytes{};
  encode(known, bytes.data());
  EXPECT_EQ(bytes[6], 0);  // no token: what an xttcp older than tokens writes
  EXPECT_EQ(bytes[7], 0);
  bytes[5] = 0x80;
  bytes[6] = 0x12;
  bytes[7] = 0x34;
  DatagramHeader decoded;
  ASSERT_TRUE(decode(bytes.data(), bytes.size(), decoded));
  DatagramHeader expected = known;
  expected.token = 0x1234;
  EXPECT_EQ(decoded, expected);
}

TEST(DatagramHeader, TokenRoundTripsAtOffset6) {
  std::array<unsigned char, header_size> bytes{};
  encode(DatagramHeader{1, 2, 3, 0xBEEF}, bytes.data());
  EXPECT_EQ(bytes[6], 0xBE);
  EXPECT_EQ(bytes[7], 0xEF);
  stamp(bytes.data(), 9, 10);  // the hot path keeps it
  DatagramHeader decoded;
  ASSERT_TRUE(decode(bytes.data(), bytes.size(), decoded));
  EXPECT_EQ(decoded, (DatagramHeader{1, 9, 10, 0xBEEF}));
}

TEST(DatagramHeader, NtttcpPayloadNeverDecodes) {
  // NTttcp fills UDP payload with 'B' (0x42): 0x42424242 is not the magic, whatever the length.
  DatagramHeader decoded{1, 2, 3};
  for (std::size_t length :
       {std::size_t{24}, std::size_t{64}, std::size_t{1472}, std::size_t{65507}}) {
    std::vector<unsigned char> payload(length, 'B');
    EXPECT_FALSE(decode(payload.data(), payload.size(), decoded)) << length;
  }
  EXPECT_EQ(decoded, (DatagramHeader{1, 2, 3}));
}

TEST(DatagramHeader, StampRewritesOnlySequenceAndSendTime) {
  std::vector<unsigned char> datagram(64, 'p');
  encode(known, datagram.data());
  const std::vector<unsigned char> before = datagram;
  stamp(datagram.data(), 0xDEADBEEF, 0x0102030405060708);
  EXPECT_EQ(test::hex(datagram.data(), header_size),
            "58545544"
            "01"
            "00"
            "0000"
            "01020304"
            "deadbeef"
            "0102030405060708");
  for (std::size_t i = header_size; i < datagram.size(); ++i) ASSERT_EQ(datagram[i], before[i]);
  DatagramHeader decoded;
  ASSERT_TRUE(decode(datagram.data(), datagram.size(), decoded));
  EXPECT_EQ(decoded, (DatagramHeader{0x01020304, 0xDEADBEEF, 0x0102030405060708}));
}

}  // namespace
}  // namespace xttcp::udp
