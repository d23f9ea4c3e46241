// iperf 2's client header against the bytes Debian's iperf 2.1.8 sent on loopback (data/*.hex):
// ours encodes to the same bytes for the same test, and decodes theirs.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "engine/iperf2/client_header.hh"
#include "engine/iperf2/stream_preamble.hh"
#include "tests/unit/cli/cli_test_util.hh"

#ifndef IPERF2_DATA_DIR
#error "IPERF2_DATA_DIR must point at tests/unit/iperf2/data"
#endif

namespace xttcp {
namespace {

// The bytes of a capture file: hex on its non-comment lines.
std::vector<unsigned char> captured(const std::string& name) {
  std::ifstream in(std::string(IPERF2_DATA_DIR) + "/" + name);
  EXPECT_TRUE(in.good()) << "missing capture " << name;
  std::string hex, line;
  while (std::getline(in, line))
    if (!line.starts_with('#')) hex += line;
  std::vector<unsigned char> bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes.push_back(static_cast<unsigned char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return bytes;
}

std::vector<unsigned char> encoded(const iperf2::ClientHeader& header) {
  std::vector<unsigned char> bytes(iperf2::tcp_header_size);
  iperf2::encode(header, bytes.data());
  return bytes;
}

TEST(Iperf2Header, EncodesWhatIperf218SendsForOneStream) {
  const auto theirs = captured("tcp_client_P1_t1_port15211.hex");
  ASSERT_EQ(theirs.size(), iperf2::tcp_header_size);
  EXPECT_EQ(encoded(iperf2::tcp_client_header(1, 15211, 1)), theirs);
}

TEST(Iperf2Header, EncodesWhatIperf218SendsForTheGuidesTest) {
  const auto theirs = captured("tcp_client_P4_t30_port5001.hex");
  EXPECT_EQ(encoded(iperf2::tcp_client_header(4, 5001, 30)), theirs);
}

TEST(Iperf2Header, DecodesIperf218sHeader) {
  const auto theirs = captured("tcp_client_P4_t30_port5001.hex");
  auto header = iperf2::decode(theirs.data(), theirs.size());
  ASSERT_TRUE(header.has_value());
  EXPECT_EQ(header->threads, 4);
  EXPECT_EQ(header->port, 5001);
  EXPECT_EQ(header->amount, -3000);  // 30 s in 10 ms units, negative: a timed test
  EXPECT_EQ(iperf2::declared_length(header->flags), iperf2::tcp_header_size);
  EXPECT_NE(header->flags & iperf2::flag_extend, 0u);
  EXPECT_EQ(header->version_u, iperf2::version_upper);
  EXPECT_EQ(*header, iperf2::tcp_client_header(4, 5001, 30));
}

TEST(Iperf2Header, NoHeaderWhenTheFlagsSayNone) {
  std::vector<unsigned char> zeros(64, 0);
  EXPECT_FALSE(iperf2::decode(zeros.data(), zeros.size()).has_value());
  const auto theirs = captured("tcp_client_P1_t1_port15211.hex");
  EXPECT_FALSE(iperf2::decode(theirs.data(), 40).has_value());  // extended, cut short
}

TEST(Iperf2Header, PreambleOnlyForAnIperf2TcpClient) {
  auto command = parse_iperf2_dialect(test::words("-c 127.0.0.1 -t 30 -P 4"));
  ASSERT_TRUE(command.has_value());
  EXPECT_EQ(iperf2::tcp_stream_preamble(command->spec), captured("tcp_client_P4_t30_port5001.hex"));
  command->spec.iperf2.compatibility = true;  // -C: nothing before the data
  EXPECT_TRUE(iperf2::tcp_stream_preamble(command->spec).empty());
  auto server = parse_iperf2_dialect(test::words("-s"));
  EXPECT_TRUE(iperf2::tcp_stream_preamble(server->spec).empty());
  EXPECT_TRUE(iperf2::tcp_stream_preamble(TestSpec{}).empty());
}

}  // namespace
}  // namespace xttcp
