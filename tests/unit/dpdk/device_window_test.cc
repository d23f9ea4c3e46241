// engine/stats/device_window: the window between two device snapshots (per-queue counts,
// counter deltas, L1/L2/L4 rates, TSC cycles per frame), its console note, and the native JSON
// "device" object (golden, round-trip).
// Regenerate the golden files with: XTTCP_UPDATE_GOLDEN=1 meson test unit-dpdk
#include "engine/stats/device_window.hh"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "engine/report/native_json.hh"
#include "tests/unit/golden_file.hh"

namespace xttcp {
namespace {

DeviceSnapshot at_begin() {
  DeviceSnapshot s;
  s.device = "net_null0";
  s.driver = "net_null";
  s.tsc = 1'000'000'000;
  s.tsc_hz = 2'000'000'000;
  s.pollers = 2;
  s.queues = {{100, 6'000, 5, 300}, {200, 12'000, 0, 0}};
  s.counters = {{"ipackets", 5},        {"opackets", 300}, {"ibytes", 300}, {"obytes", 18'000},
                {"imissed", 7},         {"ierrors", 0},    {"oerrors", 0},  {"rx_nombuf", 0},
                {"tx_q0_packets", 100}, {"rx_unicast", 9}};
  return s;
}

DeviceSnapshot at_end() {
  DeviceSnapshot s = at_begin();
  s.tsc += 4'000'000'000;  // 2 s at 2 GHz
  // 2 s: queue 0 sent 10 M frames of 60 bytes, queue 1 30 M.
  s.queues = {{10'000'100, 600'006'000, 5, 300}, {30'000'200, 1'800'012'000, 0, 0}};
  s.counters = {{"ipackets", 5},
                {"opackets", 40'000'300},
                {"ibytes", 300},
                {"obytes", 2'400'018'000},
                {"imissed", 3 /* reset: went backwards */},
                {"ierrors", 0},
                {"oerrors", 0},
                {"rx_nombuf", 0},
                {"tx_q0_packets", 10'000'100},
                {"rx_unicast", 9},
                {"tx_new_counter", 4}};
  return s;
}

TEST(DeviceWindow, DeltasRatesAndCycles) {
  // UDP payload: 18 bytes per 60-byte frame (Ethernet 14 + IPv4 20 + UDP 8 = 42 headers).
  const DeviceResult d = device_window(at_begin(), at_end(), 2.0, true, 40'000'000ull * 18);
  EXPECT_EQ(d.direction, "tx");
  EXPECT_EQ(d.frames, 40'000'000u);
  EXPECT_EQ(d.frame_bytes, 2'400'000'000u);
  ASSERT_EQ(d.queues.size(), 2u);
  EXPECT_EQ(d.queues[0].tx_frames, 10'000'000u);
  EXPECT_EQ(d.queues[1].tx_frames, 30'000'000u);
  EXPECT_EQ(d.queues[0].rx_frames, 0u);
  EXPECT_DOUBLE_EQ(d.mpps, 20.0);
  EXPECT_DOUBLE_EQ(d.l2_gbps, 40e6 * 64 * 8 / 2 / 1e9);  // 64 bytes with the FCS
  EXPECT_DOUBLE_EQ(d.l1_gbps, 40e6 * 84 * 8 / 2 / 1e9);  // + 20 B preamble and gap
  EXPECT_DOUBLE_EQ(d.l4_gbps, 40e6 * 18 * 8 / 2 / 1e9);
  EXPECT_DOUBLE_EQ(d.cycles_per_frame, 4e9 * 2 / 40e6);  // two pollers burn every cycle
  // The eight rte_eth_stats always, others only when they moved; backwards counts 0, and a
  // counter that appeared during the window did not move.
  std::vector<std::pair<std::string, uint64_t>> expected{{"ipackets", 0},
                                                         {"opackets", 40'000'000},
                                                         {"ibytes", 0},
                                                         {"obytes", 2'400'000'000},
                                                         {"imissed", 0},
                                                         {"ierrors", 0},
                                                         {"oerrors", 0},
                                                         {"rx_nombuf", 0},
                                                         {"tx_q0_packets", 10'000'000}};
  EXPECT_EQ(d.counters, expected);
}

TEST(DeviceWindow, ReceiverCountsRxAndAnEmptyWindowIsZero) {
  const DeviceResult d = device_window(at_begin(), at_begin(), 0.0, false, 0);
  EXPECT_EQ(d.direction, "rx");
  EXPECT_EQ(d.frames, 0u);
  EXPECT_EQ(d.mpps, 0.0);
  EXPECT_EQ(d.cycles_per_frame, 0.0);
}

Result device_result() {
  Result r;
  r.role = Role::sender;
  r.backend = "dpdk";
  r.tool_version = "0.0.0-test";
  r.spec.role = Role::sender;
  r.spec.workload.protocol = Protocol::udp;
  r.spec.backend = "dpdk";
  r.duration_s = 2.0;
  r.total_bytes = 40'000'000ull * 18;
  r.device = device_window(at_begin(), at_end(), 2.0, true, r.total_bytes);
  r.notes.push_back(device_note(*r.device, "dpdk"));
  return r;
}

void expect_golden(const std::string& name, const std::string& actual) {
  test::expect_golden_in("dpdk", name, actual);
}

TEST(DeviceWindow, NoteGolden) {
  expect_golden("device-note.txt", device_note(*device_result().device, "dpdk") + "\n");
}

TEST(DeviceWindow, NativeJsonGoldenAndRoundTrip) {
  // The host and time vary nowhere here: every field is set above or left at its default.
  const std::string text = render_native_json(device_result());
  expect_golden("native-device-sender.json", text);
  Expected<Result> parsed = parse_native_json(text);
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_TRUE(parsed->device);
  const DeviceResult& d = *parsed->device;
  const Result sample = device_result();
  const DeviceResult& original = *sample.device;
  EXPECT_EQ(d.device, original.device);
  EXPECT_EQ(d.direction, "tx");
  EXPECT_EQ(d.frames, original.frames);
  EXPECT_EQ(d.frame_bytes, original.frame_bytes);
  EXPECT_DOUBLE_EQ(d.cycles_per_frame, original.cycles_per_frame);
  EXPECT_EQ(d.pollers, 2u);
  ASSERT_EQ(d.queues.size(), 2u);
  EXPECT_EQ(d.queues[1].tx_frames, 30'000'000u);
  EXPECT_EQ(d.counters, original.counters);
  EXPECT_EQ(render_native_json(*parsed), text);
}

}  // namespace
}  // namespace xttcp
