// Topology discovery on this machine, placement order on synthetic machines, pinning.
// Pinning happens in helper threads so the test process keeps its own CPU mask.
#include "topology/topology.hh"

#include <sched.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

namespace xttcp {
namespace {

namespace fs = std::filesystem;

std::vector<int> sorted_cpus(const Topology& topology) {
  std::vector<int> cpus;
  for (const CpuInfo& cpu : topology.cpus) cpus.push_back(cpu.os_index);
  std::sort(cpus.begin(), cpus.end());
  return cpus;
}

// Runs `body` on a fresh thread and waits for it (pinning must not leak into the test runner).
template <class Body>
void on_own_thread(Body body) {
  std::thread thread(body);
  thread.join();
}

TEST(DiscoverTopology, FindsAtLeastOneAllowedCpu) {
  Topology topology = discover_topology();
  ASSERT_GE(topology.cpus.size(), 1u);
  EXPECT_FALSE(topology.source.empty());
  cpu_set_t mask;
  CPU_ZERO(&mask);
  ASSERT_EQ(sched_getaffinity(0, sizeof mask, &mask), 0);
  for (const CpuInfo& cpu : topology.cpus) {
    EXPECT_TRUE(cpu.os_index >= CPU_SETSIZE || CPU_ISSET(cpu.os_index, &mask)) << cpu.os_index;
    EXPECT_GE(cpu.core, 0);
    EXPECT_GE(cpu.package, 0);
    EXPECT_GE(cpu.numa_node, 0);
  }
  std::vector<int> cpus = sorted_cpus(topology);
  EXPECT_EQ(std::adjacent_find(cpus.begin(), cpus.end()), cpus.end()) << "duplicate cpu";
}

TEST(DiscoverTopology, HwlocAndSchedGetaffinityAgreeOnTheAllowedSet) {
  EXPECT_EQ(sorted_cpus(discover_topology()), sorted_cpus(discover_topology_without_hwloc()));
}

TEST(DiscoverTopology, SysfsGroupsSiblingsIntoOneCore) {
  // A fake sysfs where every allowed CPU is a thread of core 0 of package 0 on NUMA node 1.
  std::string pattern = (fs::temp_directory_path() / "xttcp-topology-XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  fs::path root = pattern;
  for (int cpu : sorted_cpus(discover_topology_without_hwloc("/nonexistent"))) {
    fs::path dir = root / fmt::format("devices/system/cpu/cpu{}", cpu);
    fs::create_directories(dir / "topology");
    fs::create_directories(dir / "node1");
    std::ofstream(dir / "topology/core_id") << "0\n";
    std::ofstream(dir / "topology/physical_package_id") << "0\n";
  }
  Topology fake = discover_topology_without_hwloc(root.string());
  fs::remove_all(root);
  EXPECT_EQ(fake.source, "sched_getaffinity");
  for (const CpuInfo& cpu : fake.cpus) {
    EXPECT_EQ(cpu.core, 0);
    EXPECT_EQ(cpu.package, 0);
    EXPECT_EQ(cpu.numa_node, 1);
  }

  // Without topology files every CPU is its own core.
  Topology bare = discover_topology_without_hwloc("/nonexistent");
  for (std::size_t i = 0; i < bare.cpus.size(); ++i) {
    EXPECT_EQ(bare.cpus[i].core, static_cast<int>(i));
  }
}

TEST(PlacementOrder, IsAPermutationOfAllowedCpus) {
  Topology topology = discover_topology();
  std::vector<int> order = placement_order(topology);
  std::sort(order.begin(), order.end());
  EXPECT_EQ(order, sorted_cpus(topology));
  for (int cpu : order) EXPECT_TRUE(cpu_allowed(topology, cpu));
}

// 2 packages (one NUMA node each) x 2 cores x 2 threads.
Topology two_socket(bool siblings_adjacent) {
  Topology topology;
  topology.source = "synthetic";
  for (int package = 0; package < 2; ++package) {
    for (int core = 0; core < 2; ++core) {
      for (int thread = 0; thread < 2; ++thread) {
        // Intel-style numbering: all first threads (0-3), then siblings (4-7).
        // AMD/hwloc-style: the two threads of a core are adjacent (0,1 / 2,3 / ...).
        int os_index =
            siblings_adjacent ? package * 4 + core * 2 + thread : thread * 4 + package * 2 + core;
        topology.cpus.push_back(CpuInfo{os_index, package * 2 + core, package, package});
      }
    }
  }
  return topology;
}

TEST(PlacementOrder, OnePuPerCoreFirstSpreadAcrossNumaNodes) {
  EXPECT_EQ(placement_order(two_socket(false)), (std::vector<int>{0, 2, 1, 3, 4, 6, 5, 7}));
  EXPECT_EQ(placement_order(two_socket(true)), (std::vector<int>{0, 4, 2, 6, 1, 5, 3, 7}));
}

TEST(PlacementOrder, UnevenDomainsAndEmptyTopology) {
  Topology topology;
  // NUMA 0: cores 0, 1, 2 (one thread each); NUMA 1: core 3 with two threads.
  topology.cpus = {{0, 0, 0, 0}, {1, 1, 0, 0}, {2, 2, 0, 0}, {3, 3, 1, 1}, {7, 3, 1, 1}};
  EXPECT_EQ(placement_order(topology), (std::vector<int>{0, 3, 1, 2, 7}));
  EXPECT_TRUE(placement_order(Topology{}).empty());
}

TEST(CpuAllowed, OnlyTopologyCpus) {
  Topology topology = two_socket(false);
  EXPECT_TRUE(cpu_allowed(topology, 7));
  EXPECT_FALSE(cpu_allowed(topology, 8));
  EXPECT_FALSE(cpu_allowed(topology, -1));
}

TEST(PinCurrentThread, ToAnAllowedCpuSucceeds) {
  Topology topology = discover_topology();
  for (int cpu : placement_order(topology)) {
    Status status = fail("not run");
    int running_on = -1;
    on_own_thread([&] {
      status = pin_current_thread(cpu);
      running_on = sched_getcpu();
    });
    ASSERT_TRUE(status) << status.error().message;
    EXPECT_EQ(running_on, cpu);
  }
}

TEST(PinCurrentThread, ToAMissingCpuFailsClearly) {
  Status status = ok();
  on_own_thread([&] { status = pin_current_thread(100000); });
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message.rfind("cannot pin to cpu 100000: ", 0), 0u)
      << status.error().message;
  EXPECT_NE(status.error().message.find("not a CPU this process may use (allowed: "),
            std::string::npos)
      << status.error().message;

  on_own_thread([&] { status = pin_current_thread(-1); });
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message, "cannot pin to cpu -1: cpu numbers start at 0");
}

TEST(NumaNodeCpus, ANodesCpusInPlacementOrder) {
  const Topology topology = two_socket(false);  // node 0: cpus 0,1,4,5; node 1: 2,3,6,7
  EXPECT_EQ(numa_nodes(topology), (std::vector<int>{0, 1}));
  auto node0 = numa_node_cpus(topology, 0);
  ASSERT_TRUE(node0) << node0.error().message;
  EXPECT_EQ(*node0, (std::vector<int>{0, 1, 4, 5}));
  auto node1 = numa_node_cpus(topology, 1);
  ASSERT_TRUE(node1) << node1.error().message;
  EXPECT_EQ(*node1, (std::vector<int>{2, 3, 6, 7}));
  auto missing = numa_node_cpus(topology, 3);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "NUMA node 3 has no CPU this process may use (nodes: 0, 1)");
}

TEST(RestrictCurrentThread, ToTheAllowedSetKeepsItAndToOneCpuRunsThere) {
  const Topology topology = discover_topology();
  const std::vector<int> allowed = sorted_cpus(topology);
  Status status = fail("not run");
  std::vector<int> after;
  on_own_thread([&] {
    status = restrict_current_thread(allowed);
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0)
      for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &set)) after.push_back(cpu);
  });
  ASSERT_TRUE(status) << status.error().message;
  EXPECT_EQ(after, allowed);

  int running_on = -1;
  on_own_thread([&] {
    status = restrict_current_thread({allowed.back()});
    running_on = sched_getcpu();
  });
  ASSERT_TRUE(status) << status.error().message;
  EXPECT_EQ(running_on, allowed.back());
}

TEST(RestrictCurrentThread, BadSetsFailClearly) {
  Status status = ok();
  on_own_thread([&] { status = restrict_current_thread({}); });
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message, "cannot restrict to no cpu: the set is empty");
  on_own_thread([&] { status = restrict_current_thread({100000}); });
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message.rfind("cannot restrict to cpus 100000: ", 0), 0u)
      << status.error().message;
  on_own_thread([&] { status = restrict_current_thread({-1, 0}); });
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().message, "cannot restrict to cpu -1: cpu numbers start at 0");
}

TEST(DescribeTopology, ListsSourceCpusAndOrder) {
  std::string text = describe_topology(two_socket(false));
  EXPECT_EQ(text,
            "source: synthetic\n"
            "allowed cpus: 0-7 (8)\n"
            "packages: 2  numa nodes: 2  cores: 4  threads per core: 2\n"
            "  cpu  core  package  numa\n"
            "    0     0        0     0\n"
            "    4     0        0     0\n"
            "    1     1        0     0\n"
            "    5     1        0     0\n"
            "    2     2        1     1\n"
            "    6     2        1     1\n"
            "    3     3        1     1\n"
            "    7     3        1     1\n"
            "placement order: 0,2,1,3,4,6,5,7\n");
}

TEST(CpuList, ParsesAndFormats) {
  auto cpus = parse_cpu_list("0-3,8,10-11\n");
  ASSERT_TRUE(cpus) << cpus.error().message;
  EXPECT_EQ(*cpus, (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(format_cpu_list(*cpus), "0-3,8,10-11");
  EXPECT_EQ(format_cpu_list({5, 1, 2, 2, 3}), "1-3,5");
  EXPECT_EQ(format_cpu_list({}), "");
  EXPECT_TRUE(parse_cpu_list("")->empty());

  for (const char* bad : {"a", "3-1", "1,,2", "-1", "0-", "0-2000000000"}) {
    auto parsed = parse_cpu_list(bad);
    EXPECT_FALSE(parsed) << bad;
    if (!parsed) {
      EXPECT_EQ(parsed.error().message.rfind("cpu list: ", 0), 0u);
    }
  }
}

TEST(NicLocalCpus, VirtualAndMissingInterfacesSayWhy) {
  auto lo = nic_local_cpus("lo");
  ASSERT_FALSE(lo);
  EXPECT_EQ(lo.error().message, "lo is a virtual interface (no device): no CPU locality");

  auto missing = nic_local_cpus("xttcp-none0");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "no network interface named 'xttcp-none0'");
}

TEST(NicLocalCpus, RealDevicesGiveAllowedCpusWhenTheyHaveLocality) {
  Topology topology = discover_topology();
  for (const auto& entry : fs::directory_iterator("/sys/class/net")) {
    std::string name = entry.path().filename().string();
    auto cpus = nic_local_cpus(name);
    if (!cpus) {
      EXPECT_FALSE(cpus.error().message.empty()) << name;
      continue;
    }
    EXPECT_FALSE(cpus->empty()) << name;
    for (int cpu : *cpus) EXPECT_TRUE(cpu_allowed(topology, cpu)) << name << " cpu " << cpu;
  }
}

}  // namespace
}  // namespace xttcp
