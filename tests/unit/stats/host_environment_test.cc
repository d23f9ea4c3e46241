// The environment reader on a fake /proc and /sys, and the interface of a local address.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/stats/host_environment.hh"

namespace xttcp {
namespace {

namespace fs = std::filesystem;

void put(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(HostEnvironment, ReadsWhatIsThereAndLeavesTheRestEmpty) {
  const fs::path root = fs::temp_directory_path() / ("xttcp-env-" + std::to_string(::getpid()));
  put(root / "proc/sys/net/core/rmem_max", "212992\n");
  put(root / "proc/sys/net/ipv4/tcp_rmem", "4096\t131072\t6291456\n");
  put(root / "proc/sys/net/ipv4/tcp_congestion_control", "bbr\n");
  put(root / "sys/devices/system/cpu/smt/control", "notsupported\n");
  put(root / "sys/class/dmi/id/sys_vendor", "Amazon EC2\n");
  put(root / "sys/class/dmi/id/product_name", "c7gn.16xlarge\n");
  HostInfo host;
  read_host_environment(host, (root / "proc").string(), (root / "sys").string());
  fs::remove_all(root);
  EXPECT_EQ(host.smt, "notsupported");
  EXPECT_EQ(host.dmi_vendor, "Amazon EC2");
  EXPECT_EQ(host.dmi_product, "c7gn.16xlarge");
  EXPECT_EQ(host.governor, "");  // not exposed, as in many VMs
  ASSERT_EQ(host.sysctls.size(), std::size(environment_sysctls));
  EXPECT_EQ(host.sysctls[0], (std::pair<std::string, std::string>{"net.core.rmem_max", "212992"}));
  EXPECT_EQ(host.sysctls[1].second, "");                     // wmem_max missing
  EXPECT_EQ(host.sysctls[2].second, "4096 131072 6291456");  // tabs made single spaces
  EXPECT_EQ(host.sysctls[4].second, "bbr");
}

TEST(HostEnvironment, InterfaceOfALocalAddress) {
  auto lo = read_nic_identity("127.0.0.1");
  ASSERT_TRUE(lo);
  EXPECT_EQ(lo->interface_name, "lo");
  EXPECT_GT(lo->mtu, 0u);
  EXPECT_FALSE(read_nic_identity("192.0.2.77"));  // TEST-NET-1: no interface holds it
  EXPECT_FALSE(read_nic_identity("not an address"));
}

}  // namespace
}  // namespace xttcp
