// NTttcp for Windows' handshake, the pure parts: ports, the -sp wire format and its checks.
#include "engine/control/windows_token.hh"

#include <gtest/gtest.h>

namespace xttcp {
namespace {

TestSpec windows_spec(bool no_sync, bool sync_port) {
  TestSpec spec;
  spec.dialect = Dialect::windows;
  spec.control.no_sync = no_sync;
  spec.control.port_assignment = sync_port;
  spec.layout.base_port = 5001;
  return spec;
}

TEST(WindowsToken, OnlyTheWindowsDialectWithoutNsUsesTokens) {
  EXPECT_TRUE(windows_token::uses_tokens(windows_spec(false, false)));
  EXPECT_FALSE(windows_token::uses_tokens(windows_spec(true, false)));
  TestSpec linux_spec;  // Linux dialect: its own sync protocol, never tokens
  EXPECT_FALSE(windows_token::uses_tokens(linux_spec));
}

TEST(WindowsToken, DataPortsStartAboveTheBasePortWithSp) {
  EXPECT_EQ(windows_token::first_data_port(windows_spec(false, false)), 5001);
  EXPECT_EQ(windows_token::first_data_port(windows_spec(false, true)), 5002);
  TestSpec linux_spec;
  linux_spec.control.port_assignment = true;  // not set by the Linux grammar; ignored if it were
  EXPECT_EQ(windows_token::first_data_port(linux_spec), linux_spec.layout.base_port);
}

// Each thread's token goes to its own host on its data port + 1000, in thread order.
TEST(WindowsToken, TokenTargetsAreEachThreadsHostAndDataPortPlus1000) {
  TestSpec spec = windows_spec(false, false);
  spec.role = Role::sender;
  spec.layout.ports = 3;
  spec.layout.threads_per_port = 1;
  spec.layout.conns_per_thread = 1;
  spec.layout.mappings = {{1, 0, "a"}, {2, 1, "b"}};  // two CPUs: two workers
  auto plan = make_plan(spec, {0, 1});
  ASSERT_TRUE(plan.has_value()) << plan.error().message;
  using Target = windows_token::TokenTarget;
  EXPECT_EQ(windows_token::token_targets(*plan),
            (std::vector<Target>{{0, 6001}, {1, 6002}, {1, 6003}}));
  EXPECT_EQ(windows_token::threads_per_host(*plan), (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(windows_token::token_slots(*plan).size(), 3u);  // one flow per thread
  EXPECT_EQ(windows_token::token, 'X');
}

TEST(WindowsToken, AssignedPortIsA4ByteLittleEndianLong) {
  const auto bytes = windows_token::encode_assigned_port(5002);  // 0x138a
  EXPECT_EQ(bytes, (std::array<char, 4>{'\x8a', '\x13', '\0', '\0'}));
  EXPECT_EQ(windows_token::decode_assigned_port(bytes), 5002u);
  EXPECT_EQ(windows_token::decode_assigned_port({'\xff', '\xff', '\0', '\0'}), 65535u);
}

TEST(WindowsToken, AssignedPortsMustBeTheExpectedDataPorts) {
  EXPECT_TRUE(windows_token::check_assigned_ports({5003, 5002}, 5001, 2));  // any order
  const Status wrong = windows_token::check_assigned_ports({5002, 7000}, 5001, 2);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().message,
            "-sp: the receiver handed out port 7000; expected ports 5002..5003");
  const Status twice = windows_token::check_assigned_ports({5002, 5002}, 5001, 2);
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().message,
            "-sp: the receiver handed out port 5002 twice; expected ports 5002..5003");
  const Status few = windows_token::check_assigned_ports({5002}, 5001, 2);
  ASSERT_FALSE(few);
  EXPECT_EQ(few.error().message,
            "-sp: the receiver handed out 1 port(s); expected ports 5002..5003");
  const Status base = windows_token::check_assigned_ports({5001}, 5001, 1);
  ASSERT_FALSE(base);
  EXPECT_EQ(base.error().message, "-sp: the receiver handed out port 5001; expected port 5002");
}

TEST(WindowsToken, AFlowDeclarationIs10BytesAfterXTFD) {
  using windows_token::FlowDeclaration;
  const auto bytes = windows_token::encode_flow_declaration({0x12300004, 0xBEEF});
  EXPECT_EQ(std::string(bytes.data(), bytes.size()),
            std::string("XTFD\x12\x30\x00\x04\xBE\xEF", 10));
  EXPECT_EQ(windows_token::decode_flow_declaration(bytes), (FlowDeclaration{0x12300004, 0xBEEF}));
  auto other = bytes;
  other[0] = 'X';  // 'X' 'X' ...: a peer's stray token bytes are no declaration
  other[1] = 'X';
  EXPECT_EQ(windows_token::decode_flow_declaration(other), std::nullopt);
  const auto no_base = windows_token::encode_flow_declaration({0x00000004, 1});
  EXPECT_EQ(windows_token::decode_flow_declaration(no_base), std::nullopt);
}

TEST(WindowsToken, DeclaredFlowsAreOnePerSenderOrNoneWhenAThreadDeclaredNothing) {
  using windows_token::FlowDeclaration;
  const auto flows =
      windows_token::declared_flows({FlowDeclaration{0x12300001, 7}, FlowDeclaration{0x12300000, 7},
                                     FlowDeclaration{0x45600000, 9}});
  ASSERT_TRUE(flows.has_value());
  EXPECT_EQ(*flows, (std::vector<udp::DeclaredFlows>{{0x12300000, 2, 7}, {0x45600000, 1, 9}}));
  EXPECT_EQ(windows_token::declared_flows({FlowDeclaration{0x12300001, 7}, std::nullopt}),
            std::nullopt);  // an NTttcp sender's thread: every flow counts
}

}  // namespace
}  // namespace xttcp
