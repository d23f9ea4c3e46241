// xttcp sweep's plan: the cells in run order, the options each cell's sender gets (LISA's
// mapping of connections onto the receiver's ports), the presets, and the command lines refused
// in one line before anything runs.
#include <gtest/gtest.h>

#include <fstream>

#include "tools/sweep/sweep_plan.hh"

namespace xttcp {
namespace {

std::vector<std::string> words(std::initializer_list<const char*> list) {
  return {list.begin(), list.end()};
}

std::string refusal(std::initializer_list<const char*> list) {
  auto request = parse_sweep_args(words(list));
  return request ? std::string("(accepted)") : request.error().message;
}

TEST(SweepPlan, CellsRunTcpThenUdpThenRrWithBackendsInnermost) {
  auto request = parse_sweep_args(
      words({"-s", "10.0.0.2", "-P", "4", "--connections", "1,8", "--sizes", "64K", "--udp-sizes",
             "1400", "--rr-sizes", "1", "--backends", "epoll,io_uring", "--json", "s.json"}));
  ASSERT_TRUE(request) << request.error().message;
  std::vector<std::string> ids;
  for (const SweepCell& cell : request->cells) ids.push_back(cell.id());
  EXPECT_EQ(ids, words({"tcp/c1/s65536/epoll", "tcp/c1/s65536/io_uring", "tcp/c8/s65536/epoll",
                        "tcp/c8/s65536/io_uring", "udp/c1/s1400/epoll", "udp/c1/s1400/io_uring",
                        "udp/c8/s1400/epoll", "udp/c8/s1400/io_uring", "rr/c1/s1/epoll",
                        "rr/c1/s1/io_uring"}));
  EXPECT_EQ(request->json_file, "s.json");
  EXPECT_EQ(request->shared_args, words({"-s", "10.0.0.2", "-P", "4"}));
}

TEST(SweepPlan, ConnectionsMapOntoTheReceiversPortsAsLisaDoes) {
  auto request = parse_sweep_args(
      words({"-s", "10.0.0.2", "-P", "4", "--connections", "2,12", "--json", "s.json"}));
  ASSERT_TRUE(request) << request.error().message;
  ASSERT_EQ(request->cells.size(), 2u);
  // Below -P: one port each. Above: every port, 12 / 4 connections on each.
  EXPECT_EQ(cell_args(*request, request->cells[0]),
            words({"-s", "10.0.0.2", "-P", "4", "-P", "2", "-n", "1", "-l", "1", "-b", "131072"}));
  EXPECT_EQ(cell_args(*request, request->cells[1]),
            words({"-s", "10.0.0.2", "-P", "4", "-P", "4", "-n", "3", "-l", "1", "-b", "131072"}));
  SweepCell udp{CellKind::udp, 1, 1400, "epoll"};
  const auto args = cell_args(*request, udp);
  EXPECT_EQ(std::vector<std::string>(args.end() - 3, args.end()),
            words({"-u", "--backend", "epoll"}));
}

TEST(SweepPlan, WithoutAConnectionsAxisTheSharedOptionsConnectionsAreTheCell) {
  auto request = parse_sweep_args(
      words({"-s", "10.0.0.2", "-P", "2", "--sizes", "1K,1M", "--json", "s.json"}));
  ASSERT_TRUE(request) << request.error().message;
  ASSERT_EQ(request->cells.size(), 2u);
  EXPECT_EQ(request->cells[0].connections, 8u);  // -P 2 x -n 4 (the default) x -l 1
  EXPECT_EQ(request->cells[1].size_bytes, 1u << 20);
  // Only UDP asked for: no TCP cells.
  auto udp_only = parse_sweep_args(words({"-s", "h", "--udp-sizes", "64", "--json", "s.json"}));
  ASSERT_TRUE(udp_only) << udp_only.error().message;
  ASSERT_EQ(udp_only->cells.size(), 1u);
  EXPECT_EQ(udp_only->cells[0].id(), "udp/c1/s64");
}

TEST(SweepPlan, PresetsAndAnAxisThatReplacesOne) {
  auto lisa = parse_sweep_args(words({"-s", "h", "-P", "64", "--preset", "lisa", "--json", "s"}));
  ASSERT_TRUE(lisa) << lisa.error().message;
  EXPECT_EQ(lisa->cells.size(), 17u + 11u);
  EXPECT_EQ(lisa->cells.front().id(), "tcp/c1/s65536");
  EXPECT_EQ(lisa->cells[16].id(), "tcp/c20480/s65536");
  EXPECT_EQ(lisa->cells.back().id(), "udp/c1024/s1024");
  EXPECT_EQ(cell_args(*lisa, lisa->cells[16]),
            words({"-s", "h", "-P", "64", "-P", "64", "-n", "320", "-l", "1", "-b", "65536"}));
  auto quick = parse_sweep_args(
      words({"-s", "h", "--preset", "quick", "--connections", "2", "--json", "s"}));
  ASSERT_TRUE(quick) << quick.error().message;
  EXPECT_EQ(quick->cells.size(), 2u + 4u);  // 2 x 64K,1M; UDP 64,1400 x 1,4 flows
}

std::string plan_file(const std::string& name, const std::string& text) {
  const std::string path = testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(SweepPlan, APlanFileHoldsTheAxesAndTheCommandLineWins) {
  const std::string path = plan_file("plan.txt",
                                     "# driver matrix\n"
                                     "--connections 1,4\n"
                                     "\n"
                                     "--sizes 64K,1M   # two write sizes\n"
                                     "--udp-sizes 1400\n");
  auto request =
      parse_sweep_args(words({"-s", "h", "--plan", path.c_str(), "--sizes", "16K", "--json", "s"}));
  ASSERT_TRUE(request) << request.error().message;
  std::vector<std::string> ids;
  for (const SweepCell& cell : request->cells) ids.push_back(cell.id());
  EXPECT_EQ(ids, words({"tcp/c1/s16384", "tcp/c4/s16384", "udp/c1/s1400", "udp/c4/s1400"}));
  EXPECT_EQ(request->shared_args, words({"-s", "h"}));
}

TEST(SweepPlan, APlanFileHoldsOnlyTheSweepsOwnOptions) {
  const std::string sender = plan_file("sender.txt", "--connections 1\n-t 30\n");
  EXPECT_EQ(refusal({"-s", "h", "--plan", sender.c_str(), "--json", "s"}),
            "sweep: --plan " + sender +
                ": line 2: not 'OPTION VALUE' of the sweep's own (--connections, --sizes, "
                "--udp-sizes, --udp-connections, --rr-sizes, --rr-connections, --backends, "
                "--preset, --udp-port, --rr-port)");
  const std::string two = plan_file("two.txt", "--connections 1 4\n");
  EXPECT_NE(refusal({"-s", "h", "--plan", two.c_str(), "--json", "s"}).find("line 1"),
            std::string::npos);
  EXPECT_EQ(refusal({"-s", "h", "--plan", "/nonexistent/plan", "--json", "s"}).substr(0, 21),
            "sweep: --plan: cannot");
  const std::string ok = plan_file("ok.txt", "--connections 1\n");
  EXPECT_EQ(refusal({"-s", "h", "--plan", ok.c_str(), "--plan", ok.c_str(), "--json", "s"}),
            "sweep: --plan is given twice");
}

TEST(SweepPlan, MistakesAreOneLineBeforeAnythingRuns) {
  EXPECT_EQ(refusal({"-s", "h", "--connections", "1"}),
            "sweep: --json FILE is required: the sweep keeps every finished cell in it");
  EXPECT_EQ(refusal({"-s", "h", "--json", "s"}),
            "sweep: nothing to sweep: give --connections, --sizes, --udp-sizes, --rr-sizes, "
            "--backends or --preset");
  EXPECT_EQ(refusal({"-s", "h", "--connections", "1", "-n", "2", "--json", "s"}),
            "sweep: -n: each cell sets its connections (--connections, --udp-connections, "
            "--rr-connections)");
  EXPECT_EQ(refusal({"-s", "h", "--connections", "1", "-u", "--json", "s"}).substr(0, 43),
            "sweep: -u: a cell's protocol comes from the");
  EXPECT_EQ(refusal({"-s", "h", "--connections", "1", "-j", "r.json", "--json", "s"}),
            "sweep: -j: every cell would write over the same file; the sweep's --json FILE "
            "holds every cell's runs");
  EXPECT_EQ(refusal({"-s", "h", "--connections", "20", "--json", "s"}),
            "sweep: --connections: 20: above the receiver's -P 16 a cell needs a multiple of it "
            "(each port gets the same number)");
  EXPECT_EQ(refusal({"-s", "h", "--udp-sizes", "64", "--udp-connections", "1,20", "--json", "s"})
                .substr(0, 29),
            "sweep: --udp-connections: 20:");
  EXPECT_EQ(refusal({"-s", "h", "--connections", "1", "--udp-connections", "2", "--json", "s"}),
            "sweep: --udp-connections: no UDP cell to give them (--udp-sizes)");
  EXPECT_EQ(refusal({"-s", "h", "--connections=1", "--json=s"}), "(accepted)");
  EXPECT_EQ(refusal({"-s", "h", "--connections", "1,", "--json", "s"}),
            "sweep: --connections: '1,' is not a comma-separated list");
  EXPECT_EQ(refusal({"-s", "h", "--sizes", "64K,abc", "--json", "s"}),
            "sweep: --sizes: 'abc' is not a size from 1 to 1073741824");
  EXPECT_EQ(refusal({"-r", "h", "--connections", "1", "--json", "s"}),
            "sweep: the options every cell shares must make a sender: -s HOST ...");
  EXPECT_EQ(refusal({"-s", "h", "-t", "0", "--connections", "1", "--json", "s"}),
            "sweep: -t 0 runs until stopped: a cell needs a measured window (-t SEC)");
  EXPECT_EQ(refusal({"-s", "h", "--connections", "1", "--json", "-"}),
            "sweep: --json: give a file: the sweep rewrites it after every cell");
  // A cell's own options are checked as its sender will read them.
  EXPECT_EQ(refusal({"-s", "h", "--rr-sizes", "2G", "--json", "s"}),
            "sweep: --rr-sizes: '2G' is not a size from 1 to 1073741824");
}

}  // namespace
}  // namespace xttcp
