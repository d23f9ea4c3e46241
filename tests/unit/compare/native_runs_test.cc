// The set of repeated runs: what it writes reads back, with statistics per metric; a single
// result reads as a set of one; bad documents fail with one line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/report/native_runs.hh"

namespace xttcp {
namespace {

Result run_of(uint64_t bytes) {
  Result r;
  r.role = Role::sender;
  r.tool_version = "9.9";
  r.duration_s = 2;
  r.total_bytes = bytes;
  r.cpu.process_system_s = 1;
  return r;
}

TEST(NativeRuns, RoundTripWithStatistics) {
  RunSet set;
  set.pause_s = 1.5;
  for (uint64_t gb : {2, 3, 4}) set.runs.push_back(run_of(gb * 1'000'000'000));
  for (Result& run : set.runs) run.spec.repeat = RepeatOptions{3, 1.5};
  const std::string text = render_native_runs(set);
  auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["schema"], "xttcp-runs");
  EXPECT_EQ(doc["repeat"]["count"], 3);
  const auto& t = doc["statistics"]["metrics"]["throughput_gbps"];
  EXPECT_DOUBLE_EQ(t["median"].get<double>(), 12.0);  // 8, 12, 16 Gbit/s
  EXPECT_DOUBLE_EQ(t["stddev"].get<double>(), 4.0);
  EXPECT_NEAR(t["ci_high"].get<double>(), 12 + 4.30265273 * 4 / std::sqrt(3.0), 1e-6);
  EXPECT_EQ(doc["statistics"]["ci_method"], "Student t interval of the mean, 95 %");
  auto back = parse_native_runs(text);
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->runs.size(), 3u);
  EXPECT_EQ(back->runs[2].total_bytes, 4'000'000'000u);
  EXPECT_DOUBLE_EQ(back->pause_s, 1.5);
  EXPECT_EQ(back->runs[0].spec.repeat.count, 3u);  // the spec says it was one of 3
  EXPECT_DOUBLE_EQ(back->runs[0].spec.repeat.pause_s, 1.5);
}

TEST(NativeRuns, TheEnvironmentRoundTrips) {
  Result r = run_of(1000);
  r.host.governor = "performance";
  r.host.smt = "on";
  r.host.dmi_vendor = "Amazon EC2";
  r.host.dmi_product = "c7gn.16xlarge";
  r.host.build = "release io_uring=true dpdk=false hwloc=true";
  r.host.sysctls = {{"net.core.rmem_max", "212992"}, {"net.ipv4.tcp_congestion_control", "bbr"}};
  r.host.nic = NicIdentity{"eth0", "ena", "2.13.3g", "", "0000:00:05.0", 9001};
  r.host.nic->offloads = "tso on, gso on, gro on, lro off, rx-checksum on, tx-checksum on";
  r.host.nic->channels = "rx 0 tx 0 combined 8 other 1";
  r.host.nic->queue_irqs = "8 queue IRQs on CPUs 0,2,4,6";
  auto back = parse_native_runs(render_native_runs(RunSet{{r}, 0}));
  ASSERT_TRUE(back) << back.error().message;
  const HostInfo& h = back->runs.at(0).host;
  EXPECT_EQ(h.governor, "performance");
  EXPECT_EQ(h.smt, "on");
  EXPECT_EQ(h.dmi_product, "c7gn.16xlarge");
  EXPECT_EQ(h.build, r.host.build);
  ASSERT_TRUE(h.nic.has_value());
  EXPECT_EQ(h.nic->offloads, r.host.nic->offloads);
  EXPECT_EQ(h.nic->channels, r.host.nic->channels);
  EXPECT_EQ(h.nic->queue_irqs, r.host.nic->queue_irqs);
  EXPECT_EQ(h.sysctls, r.host.sysctls);
  ASSERT_TRUE(h.nic);
  EXPECT_EQ(h.nic->driver, "ena");
  EXPECT_EQ(h.nic->driver_version, "2.13.3g");
  EXPECT_EQ(h.nic->mtu, 9001u);
  // Nothing read, nothing written: the keys are absent, not empty.
  const std::string bare = render_native_runs(RunSet{{run_of(1000)}, 0});
  EXPECT_EQ(bare.find("\"governor\""), std::string::npos);
  EXPECT_EQ(bare.find("\"nic\": {"), std::string::npos);  // the spec has a "nic" string
}

TEST(NativeRuns, RefusesWhatIsNotASet) {
  EXPECT_FALSE(parse_native_runs("[]"));
  auto other = parse_native_runs(R"({"schema": "iperf3"})");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("neither"), std::string::npos);
  EXPECT_FALSE(parse_native_runs(R"({"schema": "xttcp-runs", "schema_version": 1, "runs": []})"));
  auto newer = parse_native_runs(R"({"schema": "xttcp-runs", "schema_version": 99, "runs": []})");
  ASSERT_FALSE(newer);
  EXPECT_NE(newer.error().message.find("99"), std::string::npos);
  auto bad_run = parse_native_runs(
      R"({"schema": "xttcp-runs", "schema_version": 1, "runs": [{"schema": "x"}]})");
  ASSERT_FALSE(bad_run);
  EXPECT_NE(bad_run.error().message.find("runs[0]"), std::string::npos);
}

}  // namespace
}  // namespace xttcp
