// io_backends/dpdk/port_description: RETA groups of 64 with masks -> a flat table, rss_hf's flow
// types -> the kernel path's words, the NUMA warning; and the DeviceDescription they fill, as
// the engine uses it: the RSS description a receiver's hello carries, the native JSON
// "device.description" (golden, round-trip) and -V's lines (golden).
// Regenerate the golden files with: XTTCP_UPDATE_GOLDEN=1 meson test unit-dpdk
#include "io_backends/dpdk/port_description.hh"

#include <gtest/gtest.h>

#include "engine/report/native_json.hh"
#include "engine/report/queue_console.hh"
#include "engine/rss/receiver_rss.hh"
#include "tests/unit/golden_file.hh"

namespace xttcp::dpdk {
namespace {

TEST(RetaGroups, QueryAsksForEveryEntry) {
  const std::vector<RetaGroup> groups = reta_query_groups(128);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].mask, ~uint64_t{0});
  EXPECT_EQ(groups[1].mask, ~uint64_t{0});
  const std::vector<RetaGroup> odd = reta_query_groups(72);  // a last group of 8
  ASSERT_EQ(odd.size(), 2u);
  EXPECT_EQ(odd[1].mask, uint64_t{0xff});
  EXPECT_TRUE(reta_query_groups(0).empty());
}

TEST(RetaGroups, FlattenInEntryOrder) {
  std::vector<RetaGroup> groups = reta_query_groups(72);
  for (std::size_t e = 0; e < 72; ++e)
    groups[e / reta_group_size].reta[e % reta_group_size] = static_cast<uint16_t>(e % 3);
  auto table = flatten_reta(groups, 72, 3);
  ASSERT_TRUE(table) << table.error().message;
  ASSERT_EQ(table->size(), 72u);
  EXPECT_EQ((*table)[0], 0u);
  EXPECT_EQ((*table)[64], 1u);  // first entry of the second group
  EXPECT_EQ((*table)[71], 2u);
}

TEST(RetaGroups, RefusesWhatTheDeviceDidNotReport) {
  std::vector<RetaGroup> groups = reta_query_groups(128);
  groups[1].mask &= ~(uint64_t{1} << 5);  // entry 69 left out
  auto missing = flatten_reta(groups, 128, 4);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "entry 69 not reported");

  groups = reta_query_groups(64);
  groups[0].reta[10] = 4;
  auto beyond = flatten_reta(groups, 64, 4);
  ASSERT_FALSE(beyond);
  EXPECT_EQ(beyond.error().message, "entry 10 names queue 4 of 4 RX queues");

  EXPECT_FALSE(flatten_reta(reta_query_groups(64), 128, 4));  // too few groups for the size
}

TEST(HashFields, KernelWordsPerFlowType) {
  HashedTypes hashed;
  hashed.ipv4 = hashed.ipv4_udp = true;
  hashed.ipv6 = true;
  const std::vector<std::pair<std::string, std::string>> expected{
      {"tcp4", "src-ip dst-ip"},
      {"udp4", "src-ip dst-ip src-port dst-port"},
      {"tcp6", "src-ip dst-ip"},
      {"udp6", "src-ip dst-ip"}};
  EXPECT_EQ(hash_fields_of(hashed), expected);
  for (const auto& [type, words] : hash_fields_of({})) EXPECT_EQ(words, "none") << type;
  EXPECT_TRUE(hashes_ports(hash_fields_of(hashed)[1].second));
}

TEST(NumaWarning, OnlyWhenThePortIsOffEveryAllowedNode) {
  EXPECT_EQ(numa_warning("0000:00:06.0", 1, {0, 1}), "");
  EXPECT_EQ(numa_warning("0000:00:06.0", -1, {0}), "");  // the port has no node
  EXPECT_EQ(numa_warning("0000:00:06.0", 1, {}), "");
  EXPECT_EQ(numa_warning("0000:00:06.0", 1, {0, 2}),
            "0000:00:06.0 is on NUMA node 1, but the CPUs xttcp may run on are on node(s) 0, 2: "
            "every frame crosses nodes (run xttcp on CPUs of node 1: taskset, or -m)");
}

// A port as a NIC's PMD might describe itself: 2 queues, a 40-byte key, a 128-entry table.
DeviceDescription described() {
  DeviceDescription d;
  d.numa_unavailable = "unavailable: the port reports no NUMA node (SOCKET_ID_ANY)";
  d.rx_queues = d.tx_queues = 2;
  d.max_rx_queues = d.max_tx_queues = 16;
  d.reta_size = 128;
  d.hash_key_size = 40;
  d.rss_offloads = {"ipv4", "ipv4-udp", "ipv6", "ipv6-udp"};
  d.rss.nic = "0000:00:06.0";
  d.rss.hash_function = "unknown";
  d.rss.queues = 2;
  for (uint8_t i = 0; i < 40; ++i) d.rss.key.push_back(static_cast<uint8_t>(i * 7));
  for (uint32_t i = 0; i < 128; ++i) d.rss.indirection.push_back(i % 2);
  HashedTypes hashed;
  hashed.ipv4 = hashed.ipv4_udp = hashed.ipv6 = hashed.ipv6_udp = true;
  d.rss.hash_fields = hash_fields_of(hashed);
  return d;
}

TEST(DeviceRss, TheHelloTakesAWholeDescription) {
  auto rss = rss_description_of(described());
  ASSERT_TRUE(rss) << rss.error().message;
  EXPECT_EQ(rss->nic, "0000:00:06.0");
  EXPECT_EQ(rss->queues, 2u);
  EXPECT_EQ(rss->key.size(), 40u);
  EXPECT_EQ(rss->indirection.size(), 128u);
  EXPECT_EQ(rss->hash_function, "unknown");
}

TEST(DeviceRss, SaysWhichPartsAreMissing) {
  DeviceDescription d = described();
  d.rss.key.clear();
  d.key_unavailable = "unavailable: rte_eth_dev_rss_hash_conf_get: Operation not supported";
  d.rss.indirection.clear();
  d.indirection_unavailable = "unavailable: the port reports no indirection table (reta_size 0)";
  auto rss = rss_description_of(d);
  ASSERT_FALSE(rss);
  EXPECT_EQ(
      rss.error().message,
      "0000:00:06.0: key unavailable: rte_eth_dev_rss_hash_conf_get: Operation not supported; "
      "indirection table unavailable: the port reports no indirection table (reta_size 0)");
  d = described();
  d.rss.indirection[3] = 7;  // beyond its 2 queues
  EXPECT_FALSE(rss_description_of(d));
}

Result receiver_result() {
  Result r;
  r.role = Role::receiver;
  r.backend = "dpdk";
  r.tool_version = "0.0.0-test";
  r.spec.role = Role::receiver;
  r.spec.workload.protocol = Protocol::udp;
  r.spec.backend = "dpdk";
  r.duration_s = 2.0;
  DeviceResult device;
  device.device = "0000:00:06.0";
  device.driver = "net_ena";
  device.direction = "rx";
  device.counters = {{"ipackets", 0}, {"opackets", 0}, {"ibytes", 0},  {"obytes", 0},
                     {"imissed", 0},  {"ierrors", 0},  {"oerrors", 0}, {"rx_nombuf", 0}};
  device.description = described();
  device.description->warnings.push_back("a warning for the test");
  r.device = device;
  return r;
}

TEST(DeviceDescriptionReport, NativeJsonGoldenAndRoundTrip) {
  const std::string text = render_native_json(receiver_result());
  test::expect_golden_in("dpdk", "native-device-receiver.json", text);
  Expected<Result> parsed = parse_native_json(text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_TRUE(parsed->device && parsed->device->description);
  const DeviceDescription& d = *parsed->device->description;
  const DeviceDescription original = receiver_result().device->description.value();
  EXPECT_FALSE(d.numa_node);
  EXPECT_EQ(d.numa_unavailable, original.numa_unavailable);
  EXPECT_EQ(d.rss.key, original.rss.key);
  EXPECT_EQ(d.rss.indirection, original.rss.indirection);
  EXPECT_EQ(d.rss.hash_fields, original.rss.hash_fields);
  EXPECT_EQ(d.rss_offloads, original.rss_offloads);
  EXPECT_EQ(d.warnings, original.warnings);
  EXPECT_EQ(render_native_json(*parsed), text);
}

TEST(DeviceDescriptionReport, VerboseLinesGolden) {
  Result r = receiver_result();
  std::string text;
  for (const std::string& line : device_description_lines(*r.device)) text += line + "\n";
  r.device->description->rss.key.clear();
  r.device->description->key_unavailable =
      "unavailable: rte_eth_dev_rss_hash_conf_get: Operation not supported";
  r.device->description->rss.indirection.clear();
  r.device->description->indirection_unavailable =
      "unavailable: rte_eth_dev_rss_reta_query: Operation not supported";
  r.device->description->numa_node = 0;
  for (const std::string& line : device_description_lines(*r.device)) text += line + "\n";
  test::expect_golden_in("dpdk", "device-description.txt", text);
  r.device->description.reset();
  EXPECT_TRUE(device_description_lines(*r.device).empty());
}

}  // namespace
}  // namespace xttcp::dpdk
