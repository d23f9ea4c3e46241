// Windows NIC discovery's pure half: a GetIfTable2 row's fields become NicInfo, and every part
// Windows does not give says "not available" and why.
#include "topology/nic/nic_windows_map.hh"

#include <gtest/gtest.h>

namespace xttcp {
namespace {

WindowsIfRow ethernet_row() {
  WindowsIfRow row;
  row.alias = "Ethernet 2";
  row.luid_name = "ethernet_32769";
  row.description = "Microsoft Azure Network Adapter";
  row.mtu = 1500;
  row.transmit_bps = 100'000'000'000;
  row.receive_bps = 100'000'000'000;
  row.if_type = 6;
  row.physical_medium = 14;
  row.hardware_interface = true;
  row.connector_present = true;
  row.oper_status = kIfOperStatusUp;
  return row;
}

WindowsIfRow loopback_row() {
  WindowsIfRow row;
  row.alias = "Loopback Pseudo-Interface 1";
  row.luid_name = "loopback_0";
  row.description = "Software Loopback Interface 1";
  row.mtu = 0xffffffffu;
  row.transmit_bps = 1'073'741'824'000;
  row.receive_bps = 1'073'741'824'000;
  row.if_type = kIfTypeSoftwareLoopback;
  row.oper_status = kIfOperStatusUp;
  return row;
}

bool starts_not_available(const Error& error) {
  return error.message.rfind("not available: ", 0) == 0;
}

TEST(NicWindowsMap, EthernetRowGivesNameDriverMtuAndSpeed) {
  const NicInfo nic = nic_info_from_row(ethernet_row(), true);
  EXPECT_EQ(nic.name, "Ethernet 2");
  ASSERT_TRUE(nic.driver) << nic.driver.error().message;
  EXPECT_EQ(nic.driver->name, "Microsoft Azure Network Adapter");
  EXPECT_EQ(nic.driver->version, "");
  ASSERT_TRUE(nic.mtu);
  EXPECT_EQ(*nic.mtu, 1500);
  ASSERT_TRUE(nic.speed_mbps) << nic.speed_mbps.error().message;
  EXPECT_EQ(*nic.speed_mbps, 100000);
}

TEST(NicWindowsMap, WhatWindowsDoesNotGiveSaysWhy) {
  const NicInfo nic = nic_info_from_row(ethernet_row(), true);
  for (const Error* error :
       {&nic.pci_address.error(), &nic.numa_node.error(), &nic.local_cpus.error(),
        &nic.max_mtu.error(), &nic.channels.error(), &nic.rings.error(), &nic.coalescing.error(),
        &nic.offloads.error(), &nic.rss.error(), &nic.irqs.error(), &nic.queue_counters.error()})
    EXPECT_TRUE(starts_not_available(*error)) << error->message;
  EXPECT_NE(nic.numa_node.error().message.find("SetupAPI"), std::string::npos);
  EXPECT_NE(nic.max_mtu.error().message.find("*JumboPacket"), std::string::npos);
  EXPECT_TRUE(nic.hash_fields.empty());
  EXPECT_TRUE(nic.steering.empty());
}

TEST(NicWindowsMap, RssSaysWhatTheQueryAnswered) {
  EXPECT_NE(nic_info_from_row(ethernet_row(), true).rss.error().message.find("RSS is on"),
            std::string::npos);
  EXPECT_NE(nic_info_from_row(ethernet_row(), false).rss.error().message.find("RSS is off"),
            std::string::npos);
  const NicInfo refused = nic_info_from_row(
      ethernet_row(), Error{"SIO_QUERY_RSS_SCALABILITY_INFO: operation not supported (10045)"});
  EXPECT_TRUE(starts_not_available(refused.rss.error()));
  EXPECT_NE(refused.rss.error().message.find("(10045)"), std::string::npos)
      << refused.rss.error().message;
  EXPECT_NE(refused.rss.error().message.find("OID_GEN_RECEIVE_SCALE_PARAMETERS"),
            std::string::npos);
}

TEST(NicWindowsMap, LoopbackHasNoMtuAndIsNoDevice) {
  const NicInfo nic = nic_info_from_row(loopback_row(), true);
  ASSERT_FALSE(nic.mtu);
  EXPECT_TRUE(starts_not_available(nic.mtu.error()));
  EXPECT_FALSE(is_device_interface(loopback_row()));
  EXPECT_TRUE(is_device_interface(ethernet_row()));
}

TEST(NicWindowsMap, FilterRowsAndSoftwareInterfacesAreNoDevices) {
  WindowsIfRow filter = ethernet_row();
  filter.alias = "Ethernet 2-WFP Native MAC Layer LightWeight Filter-0000";
  filter.filter_interface = true;
  EXPECT_FALSE(is_device_interface(filter));
  WindowsIfRow tunnel = ethernet_row();
  tunnel.hardware_interface = false;
  tunnel.connector_present = false;
  tunnel.if_type = 131;
  EXPECT_FALSE(is_device_interface(tunnel));
  WindowsIfRow connector_only = ethernet_row();
  connector_only.hardware_interface = false;
  EXPECT_TRUE(is_device_interface(connector_only));
}

TEST(NicWindowsMap, SpeedIsTheSlowerKnownDirectionOfAnUpLink) {
  WindowsIfRow row = ethernet_row();
  row.receive_bps = 25'000'000'000;
  EXPECT_EQ(*nic_info_from_row(row, true).speed_mbps, 25000);
  row.receive_bps = ~std::uint64_t{0};  // unknown: the other direction stands
  EXPECT_EQ(*nic_info_from_row(row, true).speed_mbps, 100000);
  row.transmit_bps = 0;
  const NicInfo unknown = nic_info_from_row(row, true);
  ASSERT_FALSE(unknown.speed_mbps);
  EXPECT_TRUE(starts_not_available(unknown.speed_mbps.error()));
  row = ethernet_row();
  row.oper_status = 2;
  const NicInfo down = nic_info_from_row(row, true);
  ASSERT_FALSE(down.speed_mbps);
  EXPECT_EQ(down.speed_mbps.error().message, "not available: Ethernet 2 is down (no link speed)");
  row.transmit_bps = row.receive_bps = 1'000;  // under 1 Mb/s: no whole Mb/s figure
  row.oper_status = kIfOperStatusUp;
  EXPECT_FALSE(nic_info_from_row(row, true).speed_mbps);
}

TEST(NicWindowsMap, NoDescriptionNoDriver) {
  WindowsIfRow row = ethernet_row();
  row.description.clear();
  const NicInfo nic = nic_info_from_row(row, true);
  ASSERT_FALSE(nic.driver);
  EXPECT_TRUE(starts_not_available(nic.driver.error()));
}

TEST(NicWindowsMap, AliasOrLuidNameNamesTheRowIgnoringCase) {
  const WindowsIfRow row = ethernet_row();
  EXPECT_TRUE(names_interface(row, "Ethernet 2"));
  EXPECT_TRUE(names_interface(row, "ETHERNET 2"));
  EXPECT_TRUE(names_interface(row, "ethernet_32769"));
  EXPECT_FALSE(names_interface(row, "Ethernet"));
  EXPECT_FALSE(names_interface(row, ""));
  WindowsIfRow no_luid = row;
  no_luid.luid_name.clear();
  EXPECT_FALSE(names_interface(no_luid, ""));
}

TEST(NicWindowsMap, OperStatusNames) {
  EXPECT_EQ(oper_status_name(1), "up");
  EXPECT_EQ(oper_status_name(7), "lower layer down");
  EXPECT_EQ(oper_status_name(42), "status 42");
}

}  // namespace
}  // namespace xttcp
