// Once a test's senders declared their flows, datagrams of any other flow id speak for nobody:
// they are no data for the caller (so not in the test's bytes), sit in the slot's foreign
// record (not in the sums, nor the run figures), take no place in the flow table, and their
// end markers end nothing. Without declarations every flow counts, as before, but a marker
// ends only a flow that brought data.
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <random>

#include "engine/run/hello.hh"
#include "engine/udp/datagram_accounting.hh"
#include "engine/udp/datagram_header.hh"
#include "engine/udp/end_marker.hh"
#include "engine/udp/flow_admission.hh"
#include "engine/udp/flow_registry.hh"
#include "engine/udp/udp_result.hh"

namespace xttcp::udp {
namespace {

constexpr uint32_t declared_base = 7u << flow_slot_bits;

struct AdmittingSocket {
  AdmittingSocket() { registry.set_admission(&admission); }
  bool datagram(uint32_t flow, uint32_t sequence, uint64_t at_ns = 1, uint16_t token = 0) {
    std::array<unsigned char, 100> bytes{};
    encode({flow, sequence, at_ns, token}, bytes.data());
    const bool data = accounting.on_datagram(bytes.data(), bytes.size(), bytes.size(), at_ns);
    accounting.announce_ended();
    return data;
  }
  void end_marker(uint32_t flow, uint64_t sent, uint16_t token = 0) {
    std::array<unsigned char, end_marker_size> bytes{};
    encode_end_marker({flow, sent, false, 1, token}, bytes.data());
    EXPECT_FALSE(accounting.on_datagram(bytes.data(), bytes.size(), bytes.size(), 1));
    accounting.announce_ended();
  }

  FlowAdmission admission;
  UdpFlowRegistry registry{64};
  int ended = 0;
  std::function<void()> on_end = [this] { ++ended; };
  DatagramAccounting accounting{registry, 0, &on_end};
};

TEST(FlowAdmission, UndeclaredFlowsAreForeignOnceTheTestsSendersDeclaredTheirs) {
  AdmittingSocket s;
  s.admission.declare(std::vector<DeclaredFlows>{{declared_base, 2}});
  EXPECT_TRUE(s.datagram(declared_base | 0, 0));
  EXPECT_TRUE(s.datagram(declared_base | 1, 0));
  EXPECT_TRUE(s.datagram(declared_base | 1, 1));
  std::mt19937 random(17);
  for (int i = 0; i < 5000; ++i)  // invented ids, another declared_base, a slot past the count
    EXPECT_FALSE(s.datagram(0x40000000 | (random() & 0x3fffffff), random()));
  EXPECT_FALSE(s.datagram((8u << flow_slot_bits) | 0, 0));
  EXPECT_FALSE(s.datagram(declared_base | 2, 0));
  EXPECT_FALSE(s.datagram(retired_flow, 0));
  EXPECT_EQ(s.accounting.flows(), 2u);  // no table place for them
  EXPECT_EQ(s.accounting.flows_retired(), 0u);
  const auto flows = s.registry.snapshot();
  EXPECT_EQ(sum(flows).datagrams, 3u);
  const ForeignCounts foreign = foreign_counts(flows);
  EXPECT_EQ(foreign.datagrams, 5003u);
  EXPECT_EQ(foreign.bytes, 5003u * 100);
  UdpResult udp;
  add_run_figures(udp, Role::receiver, flows,
                  {{declared_base | 0, true, 1}, {declared_base | 1, true, 2}});
  EXPECT_EQ(udp.received, 3u);
  EXPECT_EQ(udp.sent, 3u);
  EXPECT_EQ(udp.lost, 0u);
  EXPECT_EQ(udp.unattributed, 0u);
  EXPECT_EQ(udp.foreign_datagrams, 5003u);
  EXPECT_EQ(udp.flows.size(), 2u);
}

// Every datagram of a declared flow carries xttcp's header: a shorter one (0 to 23 bytes), or
// one without the header, is no flow's. It is not data, sits in the slot's headerless record
// (not in the sums, the run figures or the foreign ones) and takes no table place. Before, such
// datagrams counted as the test's (NTttcp's payload): 500,382 received of 382 sent.
TEST(FlowAdmission, DatagramsWithoutTheHeaderAreNoDeclaredFlows) {
  AdmittingSocket s;
  s.admission.declare(std::vector<DeclaredFlows>{{declared_base, 1}});
  EXPECT_TRUE(s.datagram(declared_base, 0));
  std::array<unsigned char, 100> bytes{};
  uint64_t apart = 0, apart_bytes = 0;
  for (std::size_t length = 0; length < header_size; ++length) {
    EXPECT_FALSE(s.accounting.on_datagram(bytes.data(), length, length, 1));
    ++apart;
    apart_bytes += length;
  }
  bytes.fill('B');  // NTttcp's payload: no header either
  EXPECT_FALSE(s.accounting.on_datagram(bytes.data(), bytes.size(), bytes.size(), 1));
  ++apart;
  apart_bytes += bytes.size();
  EXPECT_EQ(s.accounting.flows(), 1u);
  const auto flows = s.registry.snapshot();
  EXPECT_EQ(sum(flows).datagrams, 1u);
  const ForeignCounts counts = foreign_counts(flows);
  EXPECT_EQ(counts.headerless_datagrams, apart);
  EXPECT_EQ(counts.headerless_bytes, apart_bytes);  // 0 + 1 + ... + 23 + 100
  EXPECT_EQ(counts.datagrams, 0u);
  UdpResult udp;
  add_run_figures(udp, Role::receiver, flows, {{declared_base, true, 1}});
  EXPECT_EQ(udp.received, 1u);
  EXPECT_EQ(udp.headerless_datagrams, apart);
  EXPECT_EQ(udp.payload, "native");
  // Without declarations (-N, NTttcp's senders) such datagrams are payload, counted as before.
  AdmittingSocket open;
  open.admission.declare(std::nullopt);
  EXPECT_TRUE(open.accounting.on_datagram(bytes.data(), 10, 10, 1));
  EXPECT_EQ(foreign_counts(open.registry.snapshot()).headerless_datagrams, 0u);
}

TEST(FlowAdmission, OnlyADeclaredFlowsEndMarkerEndsIt) {
  AdmittingSocket s;
  s.admission.declare(std::vector<DeclaredFlows>{{declared_base, 1}});
  s.end_marker(0x40000001, 10);  // someone else's marker, 5 times as a sender sends them
  for (int i = 0; i < 4; ++i) s.end_marker(declared_base | 3, 10);
  EXPECT_EQ(s.ended, 0);
  EXPECT_EQ(s.accounting.flows_ended(), 0u);
  EXPECT_EQ(foreign_counts(s.registry.snapshot()).end_markers, 5u);
  s.end_marker(declared_base | 0, 10);
  EXPECT_EQ(s.ended, 1);
}

// A spray over every base reaches the declared flow ids; without the sender's token it is
// foreign all the same, and its markers end nothing.
TEST(FlowAdmission, ADeclaredFlowIdWithoutItsTokenIsForeign) {
  constexpr uint16_t token = 0xBEEF;
  AdmittingSocket s;
  s.admission.declare(std::vector<DeclaredFlows>{{declared_base, 2, token}});
  EXPECT_TRUE(s.datagram(declared_base | 0, 0, 1, token));
  for (uint32_t base = 1; base < 4096; ++base)  // every base, token 0 and another
    for (const uint16_t guess : {uint16_t{0}, uint16_t{0xBEEE}}) {
      EXPECT_FALSE(s.datagram((base << flow_slot_bits) | 0, 1, 1, guess));
      EXPECT_FALSE(s.datagram((base << flow_slot_bits) | 1, 1, 1, guess));
    }
  for (int i = 0; i < 5; ++i) s.end_marker(declared_base | 0, 1, 0);
  EXPECT_EQ(s.ended, 0);
  EXPECT_EQ(s.accounting.flows(), 1u);
  const auto flows = s.registry.snapshot();
  EXPECT_EQ(sum(flows).datagrams, 1u);
  EXPECT_EQ(foreign_counts(flows).datagrams, 4095u * 4);
  EXPECT_EQ(foreign_counts(flows).end_markers, 5u);
  s.end_marker(declared_base | 0, 1, token);
  EXPECT_EQ(s.ended, 1);
}

TEST(FlowAdmission, TwoSendersOfOneBaseKeepTheirOwnTokens) {
  AdmittingSocket s;  // -M: two senders drew one base (1 in 4095)
  s.admission.declare(std::vector<DeclaredFlows>{{declared_base, 1, 5}, {declared_base, 1, 6}});
  EXPECT_TRUE(s.datagram(declared_base, 0, 1, 5));
  EXPECT_TRUE(s.datagram(declared_base, 1, 1, 6));
  EXPECT_FALSE(s.datagram(declared_base, 2, 1, 7));
}

TEST(FlowAdmission, ASenderOlderThanTokensIsAdmittedWithToken0) {
  AdmittingSocket s;  // its hello declares no token; its datagrams carry 0 there
  const auto old = declared_udp_flows(R"({"udp_flows":{"base":7340032,"count":1}})");
  ASSERT_TRUE(old && old->has_value());
  s.admission.declare(std::vector<DeclaredFlows>{**old});
  EXPECT_TRUE(s.datagram(declared_base, 0));
  EXPECT_FALSE(s.datagram(declared_base, 1, 1, 9));
}

TEST(FlowAdmission, BeforeAnyTestNothingNativeIsATestsAndEachTestHasItsOwnSenders) {
  AdmittingSocket s;
  s.admission.require_declarations();
  EXPECT_FALSE(s.datagram(declared_base | 0, 0));
  s.admission.declare(std::vector<DeclaredFlows>{{declared_base, 1}});
  EXPECT_TRUE(s.datagram(declared_base | 0, 1));
  s.admission.declare(std::vector<DeclaredFlows>{{declared_base + (1u << flow_slot_bits), 1}});
  EXPECT_FALSE(s.datagram(declared_base | 0, 2));  // the last test's sender, late
}

TEST(FlowAdmission, WithoutDeclarationsEveryFlowCounts) {
  AdmittingSocket s;  // -N, the Windows dialect, a sender that declared nothing
  EXPECT_TRUE(s.datagram(0x40000001, 0));
  s.admission.declare(std::nullopt);
  EXPECT_TRUE(s.datagram(0x40000002, 0));
  s.end_marker(0x40000002, 1);
  EXPECT_EQ(s.ended, 1);
  EXPECT_EQ(foreign_counts(s.registry.snapshot()).datagrams, 0u);
}

TEST(FlowAdmission, WithoutDeclarationsAMarkerEndsOnlyAFlowThatBroughtData) {
  AdmittingSocket s;  // the Windows dialect's count mode: no sender declares its flows
  for (int i = 0; i < 5; ++i) s.end_marker(0x40000003, 10);  // an invented id, no data
  EXPECT_EQ(s.ended, 0);
  EXPECT_EQ(s.accounting.flows(), 0u);  // and no table place
  EXPECT_EQ(foreign_counts(s.registry.snapshot()).end_markers, 5u);
  EXPECT_TRUE(s.datagram(0x40000004, 0));
  s.end_marker(0x40000004, 10);
  EXPECT_EQ(s.ended, 1);
}

// What a hello declares: its flows, nothing (TCP), or an error that refuses that sender alone
// (a malformed hello must not turn the test's filter off).
std::optional<DeclaredFlows> declares(const std::string& hello) {
  auto declared = declared_udp_flows(hello);
  EXPECT_TRUE(declared) << hello;
  return declared ? *declared : std::nullopt;
}

bool refused(const std::string& hello) { return !declared_udp_flows(hello); }

// A sender declares its flows only when its datagrams carry the token; an older xttcp declared
// them whatever it sent, and its hello's spec says so: taken as no declaration, so its NTttcp
// payload is not kept out as headerless.
TEST(FlowAdmission, OnlyDatagramsCarryingTheTokenAreDeclared) {
  TestSpec spec;
  spec.workload.protocol = Protocol::udp;
  spec.workload.send_buffer = 1024;
  EXPECT_TRUE(declares_udp_flows(spec));
  spec.workload.send_buffer = 23;
  EXPECT_FALSE(declares_udp_flows(spec));  // compat: too short for the header
  spec.workload.send_buffer = 1024;
  spec.workload.udp_payload = UdpPayload::compat;
  EXPECT_FALSE(declares_udp_flows(spec));
  EXPECT_EQ(declares(hello_json(spec, DeclaredFlows{declared_base, 4, 0xABCD})), std::nullopt);
  spec.workload.udp_payload = UdpPayload::automatic;
  spec.rr.on = true;  // --rr: the request carries flow id and token from 14 bytes on
  spec.workload.send_buffer = 13;
  EXPECT_FALSE(declares_udp_flows(spec));
  spec.workload.send_buffer = 14;
  EXPECT_TRUE(declares_udp_flows(spec));
  spec.workload.protocol = Protocol::tcp;
  EXPECT_FALSE(declares_udp_flows(spec));
}

TEST(FlowAdmission, AHelloDeclaresItsFlowsWithinBounds) {
  TestSpec spec;
  spec.workload.protocol = Protocol::udp;
  const std::string hello = hello_json(spec, DeclaredFlows{declared_base, 4, 0xABCD});
  EXPECT_EQ(declares(hello), (DeclaredFlows{declared_base, 4, 0xABCD}));
  EXPECT_EQ(declares(R"({"udp_flows":{"base":7340032,"count":3,"token":65535}})"),
            (DeclaredFlows{declared_base, 3, 65535}));
  EXPECT_EQ(declares(R"({"udp_flows":{"base":7340032,"count":3}})"),
            (DeclaredFlows{declared_base, 3}));
  EXPECT_EQ(declares(hello_json(spec)), std::nullopt);  // no declaration at all
  EXPECT_TRUE(refused(R"({"udp_flows":{"base":7340032,"count":3,"token":65536}})"));
  EXPECT_TRUE(refused(R"({"udp_flows":{"base":7340032,"count":3,"token":"x"}})"));
  EXPECT_TRUE(refused(R"({"udp_flows":{"base":5,"count":1}})"));
  EXPECT_TRUE(refused(R"({"udp_flows":{"base":0,"count":1}})"));
  EXPECT_TRUE(refused(R"({"udp_flows":{"base":7340032,"count":0}})"));
  EXPECT_TRUE(refused(R"({"udp_flows":{"base":7340032,"count":2000000}})"));
  EXPECT_TRUE(refused(R"({"udp_flows":{"base":-1,"count":1}})"));
  EXPECT_TRUE(refused(R"({"udp_flows":7})"));
  EXPECT_TRUE(refused("{\"a\":" + std::string(100, '[') + std::string(100, ']') + "}"));
  EXPECT_TRUE(refused("not json"));
  EXPECT_TRUE(refused("[1]"));
}

}  // namespace
}  // namespace xttcp::udp
