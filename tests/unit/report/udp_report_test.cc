// UDP results in the renderers (docs/udp.md): the console lines of both roles and the native
// JSON "udp" object and interval fields, golden-tested and round-tripped.
#include <gtest/gtest.h>

#include "engine/report/linux_console.hh"
#include "engine/report/native_json.hh"
#include "tests/unit/report/golden.hh"
#include "tests/unit/report/sample_results.hh"

namespace xttcp {
namespace {

using test::expect_golden;
using test::join_lines;

Result udp_receiver() {
  Result r = test::sample_receiver();
  r.spec.workload.protocol = Protocol::udp;
  r.intervals = {{0.0, 0.5, 735000000, 500000, 1200, 3, 41000},
                 {0.5, 0.5, 735000000, 500000, 0, 0, 38000}};
  UdpResult u;
  u.payload = "native";
  u.datagram_size = 1470;
  u.gro = true;
  u.window_datagrams = 1000000;
  u.window_pps = 99993.31;
  u.sent = 1020000;
  u.received = 1008000;
  u.lost = 12000;
  u.loss_percent = 100.0 * 12000 / 1020000;
  u.loss_source = "sender count";
  u.duplicates = 2;
  u.reordered = 31;
  u.jitter_ms = 0.041;
  u.flows = {{0x00100000, true, 510000, 504000, 6000, 1, 15, 0.041},
             {0x00100001, true, 510000, 504000, 6000, 1, 16, 0.038}};
  r.udp = u;
  return r;
}

Result udp_sender() {
  Result r = test::sample_sender_verbose();
  r.spec.workload.protocol = Protocol::udp;
  r.spec.workload.udp_payload = UdpPayload::native;
  UdpResult u;
  u.payload = "native";
  u.datagram_size = 1470;
  u.gso_segments = 44;
  u.window_datagrams = 1010000;
  u.window_pps = 100999.5;
  u.sent = 1020000;
  u.flows = {{0x00100000, true, 510000}, {0x00100001, true, 510000}};
  r.udp = u;
  return r;
}

TEST(UdpReport, ReceiverConsoleGolden) {
  expect_golden("udp-receiver-extra.txt", join_lines(xttcp_extra_lines(udp_receiver())));
}

TEST(UdpReport, SenderConsoleGolden) {
  expect_golden("udp-sender-extra.txt", join_lines(xttcp_extra_lines(udp_sender())));
}

TEST(UdpReport, PeerBlockCarriesTheReceiversLossGolden) {
  expect_golden("udp-peer-receiver.txt", join_lines(peer_summary_lines(udp_receiver())));
}

TEST(UdpReport, NativeJsonGolden) {
  expect_golden("native-udp-receiver.json", render_native_json(udp_receiver()));
}

TEST(UdpReport, NativeJsonRoundTripsTheUdpObject) {
  for (const Result& original : {udp_receiver(), udp_sender()}) {
    const std::string text = render_native_json(original);
    Expected<Result> parsed = parse_native_json(text);
    ASSERT_TRUE(parsed) << parsed.error().message;
    ASSERT_TRUE(parsed->udp);
    EXPECT_EQ(parsed->udp->lost, original.udp->lost);
    EXPECT_EQ(parsed->udp->flows.size(), original.udp->flows.size());
    EXPECT_EQ(parsed->intervals.size(), original.intervals.size());
    EXPECT_EQ(text, render_native_json(*parsed));
  }
}

// Datagrams in no listed flow (the receiver's flow table is bounded): a console line, and a
// count in the JSON that reads back.
TEST(UdpReport, UnattributedDatagramsAreSaidGolden) {
  Result r = udp_receiver();
  r.udp->unattributed = 39000;
  expect_golden("udp-receiver-unattributed.txt", join_lines(xttcp_extra_lines(r)));
  Expected<Result> parsed = parse_native_json(render_native_json(r));
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_TRUE(parsed->udp);
  EXPECT_EQ(parsed->udp->unattributed, 39000u);
}

// Datagrams and end markers of flows no sender of the test set up: in none of the figures, a
// console line of their own, counts in the JSON that read back.
TEST(UdpReport, ForeignDatagramsAreSaidApartGolden) {
  Result r = udp_receiver();
  r.udp->foreign_datagrams = 23000;
  r.udp->foreign_bytes = 1495000;
  r.udp->foreign_end_markers = 5;
  expect_golden("udp-receiver-foreign.txt", join_lines(xttcp_extra_lines(r)));
  Expected<Result> parsed = parse_native_json(render_native_json(r));
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_TRUE(parsed->udp);
  EXPECT_EQ(parsed->udp->foreign_datagrams, 23000u);
  EXPECT_EQ(parsed->udp->foreign_bytes, 1495000u);
  EXPECT_EQ(parsed->udp->foreign_end_markers, 5u);
}

// Datagrams without the header the test's datagrams carry (too short for it): in none of the
// figures, a console line of their own, counts in the JSON that read back.
TEST(UdpReport, HeaderlessDatagramsAreSaidApartGolden) {
  Result r = udp_receiver();
  r.udp->headerless_datagrams = 500000;
  r.udp->headerless_bytes = 5750000;
  expect_golden("udp-receiver-headerless.txt", join_lines(xttcp_extra_lines(r)));
  Expected<Result> parsed = parse_native_json(render_native_json(r));
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_TRUE(parsed->udp);
  EXPECT_EQ(parsed->udp->headerless_datagrams, 500000u);
  EXPECT_EQ(parsed->udp->headerless_bytes, 5750000u);
}

TEST(UdpReport, TcpResultsHaveNoUdpObject) {
  const std::string text = render_native_json(test::sample_receiver());
  EXPECT_EQ(text.find("\"udp\""), std::string::npos);
  EXPECT_EQ(text.find("\"datagrams\""), std::string::npos);
}

}  // namespace
}  // namespace xttcp
