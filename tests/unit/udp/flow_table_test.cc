// A receiving socket's flow table is bounded: a peer inventing flow ids cannot grow it, the
// counts of flows that leave it stay in the totals (and out of the next test's), and a real
// flow sending steadily keeps its own exact figures through the spray.
#include <gtest/gtest.h>

#include <array>
#include <random>

#include "engine/udp/datagram_accounting.hh"
#include "engine/udp/datagram_header.hh"
#include "engine/udp/flow_registry.hh"
#include "engine/udp/udp_result.hh"

namespace xttcp::udp {
namespace {

constexpr uint32_t table = 64;

struct Socket {
  void datagram(uint32_t flow, uint32_t sequence, uint64_t at_ns) {
    std::array<unsigned char, 100> bytes{};
    encode({flow, sequence, at_ns}, bytes.data());
    accounting.on_datagram(bytes.data(), bytes.size(), bytes.size(), at_ns);
  }
  const FlowRecord* find(const std::vector<FlowRecord>& flows, uint32_t flow_id) const {
    for (const FlowRecord& f : flows)
      if (f.flow_id == flow_id) return &f;
    return nullptr;
  }

  UdpFlowRegistry registry{table};
  DatagramAccounting accounting{registry, 0};
};

TEST(FlowTable, SharesTheBoundOverSockets) {
  EXPECT_EQ(flows_per_socket(1), 1024u);
  EXPECT_EQ(flows_per_socket(16), 256u);
  EXPECT_EQ(flows_per_socket(512), 64u);
  EXPECT_EQ(flows_per_socket(0), 1024u);
}

TEST(FlowTable, AnInventedFlowIdSprayStaysBoundedAndARealFlowKeepsItsFigures) {
  Socket s;
  std::mt19937 random(17);
  std::string told;
  s.registry.on_table_full = [&](std::string_view line) { told += std::string(line) + "\n"; };
  uint64_t now = 1'000'000;
  constexpr uint32_t real = 0x00500001, sprayed = 20'000;
  uint32_t sequence = 0;
  for (uint32_t i = 0; i < sprayed; ++i) {
    s.datagram(0x40000000 | (random() & 0x3fffffff), random(), now++);
    if (i % 10 == 0) s.datagram(real, sequence++, now++);  // steadier than any invented id
  }
  const auto flows = s.registry.snapshot();
  EXPECT_LE(flows.size(), table + 1);  // the table and the retired record
  EXPECT_LE(s.accounting.flows(), table);
  EXPECT_GE(s.accounting.flows_retired(), sprayed - table);
  EXPECT_EQ(told.find("than the 64 it tracks"), told.rfind("than the 64 it tracks"));  // once
  EXPECT_NE(told.find("than the 64 it tracks"), std::string::npos);
  const FlowRecord* mine = s.find(flows, real);
  ASSERT_NE(mine, nullptr);
  EXPECT_EQ(mine->counters.unique, sequence);
  EXPECT_EQ(mine->counters.lost(), 0u);
  EXPECT_EQ(sum(flows).datagrams, sprayed + sequence);  // nothing lost from the totals
  UdpResult udp;
  add_run_figures(udp, Role::receiver, flows, {});
  EXPECT_EQ(udp.received, sprayed + sequence);
  EXPECT_GE(udp.unattributed, sprayed - table);
  EXPECT_LE(udp.flows.size(), table);
}

// -N (no declarations): a real flow sending in bursts is silent longer between them than any
// invented id of a spray; it keeps its place all the same (it has shown itself a flow), and the
// spray's random sequences claim no loss (before: the real flow left the table each pause, and
// the first invented ids claimed up to 2^32 lost each: 2.1e12 in all).
TEST(FlowTable, ABurstyRealFlowKeepsItsPlaceAndASprayClaimsNoLoss) {
  Socket s;
  std::mt19937 random(5);
  uint64_t now = 1'000'000;
  constexpr uint32_t real = 0x00500001, sprayed = 20'000;
  uint32_t sequence = 0;
  for (uint32_t i = 0; i < sprayed; ++i) {
    if (i % 500 == 0)
      for (int burst = 0; burst < 10; ++burst) s.datagram(real, sequence++, now++);
    s.datagram(0x40000000 | (random() & 0x3fffffff), random(), now++);
  }
  const auto flows = s.registry.snapshot();
  const FlowRecord* mine = s.find(flows, real);
  ASSERT_NE(mine, nullptr);
  EXPECT_EQ(mine->counters.unique, sequence);  // every one of its datagrams, in its own record
  EXPECT_EQ(mine->counters.lost(), 0u);
  UdpResult udp;
  add_run_figures(udp, Role::receiver, flows, {});
  EXPECT_EQ(udp.received, sprayed + sequence);
  EXPECT_LT(udp.lost, 10u);  // an invented id's sequence inside the first window, at most
}

TEST(FlowTable, DeltasAcrossARetirementCountEachDatagramOnce) {
  Socket s;
  for (uint32_t flow = 1; flow <= table; ++flow) s.datagram(flow, 0, flow);
  const auto before = s.registry.snapshot();
  s.datagram(1, 1, 1000);    // flow 1 speaks again; flow 2 is now the one silent longest
  s.datagram(500, 0, 1001);  // a newcomer: flow 2 leaves, its 1 datagram to the retired record
  s.datagram(2, 1, 1002);    // flow 2 again: flow 3 leaves; flow 2 is tracked afresh
  const auto after = s.registry.snapshot();
  const UdpFlowSnapshot d = sum(delta(after, before));
  EXPECT_EQ(d.datagrams, 3u);
  EXPECT_EQ(d.unique, 3u);
  EXPECT_EQ(sum(after).datagrams, table + 3);
  // Flow 2, tracked afresh from its sequence 1, expects nothing before it: no false loss.
  const auto since = active_since(after, before);
  const FlowRecord* two = s.find(since, 2);
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(two->counters.unique, 1u);
  EXPECT_EQ(two->counters.lost(), 0u);
  // The retired flows' earlier datagrams are no part of this window.
  const FlowRecord* retired = s.find(since, retired_flow);
  EXPECT_EQ(retired, nullptr);  // nothing new in it since `before`
}

TEST(FlowTable, IdsNoSenderUsesAreCountedInNoFlow) {
  Socket s;
  s.datagram(retired_flow, 0, 1);
  s.datagram(compat_flow, 0, 2);
  EXPECT_EQ(s.accounting.flows(), 0u);
  const auto flows = s.registry.snapshot();
  ASSERT_EQ(flows.size(), 1u);
  EXPECT_EQ(flows[0].flow_id, retired_flow);
  EXPECT_EQ(flows[0].counters.datagrams, 2u);
}

}  // namespace
}  // namespace xttcp::udp
