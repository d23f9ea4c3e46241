// compare-paths' command line: defaults, every option, and one line naming the option for
// every bad value.
#include <gtest/gtest.h>

#include "tools/paths/paths_command.hh"

namespace xttcp {
namespace {

Expected<PathsRequest> parse(std::vector<std::string> words) { return parse_paths_args(words); }

std::string error_of(std::vector<std::string> words) {
  auto request = parse_paths_args(words);
  EXPECT_FALSE(request) << "accepted";
  return request ? "" : request.error().message;
}

TEST(PathsArgs, Defaults) {
  auto r = parse({});
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->backends.empty());
  EXPECT_EQ(r->workload.protocol, Protocol::tcp);
  EXPECT_FALSE(r->workload.rr);
  EXPECT_EQ(r->workload.ports, 1u);
  EXPECT_EQ(r->workload.threads_per_port, 1u);
  EXPECT_EQ(r->workload.seconds, 5);
  EXPECT_EQ(r->workload.warmup_s, 0u);
  EXPECT_EQ(r->workload.repeat, 3u);
  EXPECT_EQ(r->workload.buffer_bytes, 0u);  // the sender's own default
  EXPECT_EQ(r->port, 0);
}

TEST(PathsArgs, EveryOption) {
  auto r = parse({"--backends",
                  "io_uring,epoll",
                  "-u",
                  "--rr",
                  "-b",
                  "1K",
                  "--response-size",
                  "32",
                  "--rr-depth",
                  "4",
                  "-P",
                  "2",
                  "-n",
                  "3",
                  "-t",
                  "7",
                  "-W",
                  "2",
                  "--repeat",
                  "5",
                  "-p",
                  "30000",
                  "--json",
                  "-",
                  "--runs-dir",
                  "/tmp"});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->backends, (std::vector<std::string>{"io_uring", "epoll"}));
  EXPECT_EQ(r->workload.protocol, Protocol::udp);
  EXPECT_TRUE(r->workload.rr);
  EXPECT_EQ(r->workload.buffer_bytes, 1024u);
  EXPECT_EQ(r->workload.response_bytes, 32u);
  EXPECT_EQ(r->workload.depth, 4u);
  EXPECT_EQ(r->workload.ports, 2u);
  EXPECT_EQ(r->workload.threads_per_port, 3u);
  EXPECT_EQ(r->workload.seconds, 7);
  EXPECT_EQ(r->workload.warmup_s, 2u);
  EXPECT_EQ(r->workload.repeat, 5u);
  EXPECT_EQ(r->port, 30000);
  EXPECT_EQ(*r->json_file, "-");
  EXPECT_EQ(*r->runs_dir, "/tmp");
}

TEST(PathsArgs, NamespacesAddressesAndDpdk) {
  auto r = parse({"--netns", "ra,sb", "--to", "10.0.0.1", "--from", "10.0.0.2", "--backends",
                  "epoll,dpdk", "-u", "--receiver-dpdk-args", "--vdev x", "--sender-dpdk-args",
                  "--vdev y"});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->receiver_netns, "ra");
  EXPECT_EQ(r->sender_netns, "sb");
  EXPECT_EQ(r->to, "10.0.0.1");
  EXPECT_EQ(r->from, "10.0.0.2");
  EXPECT_EQ(r->receiver_dpdk_args, "--vdev x");
  EXPECT_EQ(r->sender_dpdk_args, "--vdev y");
  EXPECT_EQ(parse({})->to, "127.0.0.1");
}

TEST(PathsArgs, BadValuesNameTheOption) {
  EXPECT_NE(
      error_of({"--netns", "onlyone"}).find("--netns: 'onlyone' is not RECEIVER_NS,SENDER_NS"),
      std::string::npos);
  EXPECT_NE(error_of({"--to", "-u"}).find("--to: '-u' is not an address"), std::string::npos);
  EXPECT_NE(
      error_of({"--backends", "dpdk", "-u"}).find("--backends dpdk needs --receiver-dpdk-args"),
      std::string::npos);
  EXPECT_NE(error_of({"--repeat", "0"}).find("--repeat: '0' is not a whole number from 1"),
            std::string::npos);
  EXPECT_NE(error_of({"-t", "x"}).find("-t:"), std::string::npos);
  EXPECT_NE(error_of({"-W", "-1"}).find("-W:"), std::string::npos);
  EXPECT_NE(error_of({"-W", "3601"}).find("-W:"), std::string::npos);
  EXPECT_NE(error_of({"-b", "0"}).find("-b: '0' is not a size"), std::string::npos);
  EXPECT_NE(error_of({"--backends", "epoll,,io_uring"}).find("an empty name"), std::string::npos);
  EXPECT_NE(error_of({"--backends", "epoll,epoll"}).find("'epoll' is named twice"),
            std::string::npos);
  EXPECT_NE(error_of({"--rr-depth", "2"}).find("--rr-depth needs --rr"), std::string::npos);
  EXPECT_NE(error_of({"--response-size", "2"}).find("--response-size needs --rr"),
            std::string::npos);
  EXPECT_NE(error_of({"-P", "64", "-n", "64"}).find("-P x -n: at most 1024 flows"),
            std::string::npos);
  EXPECT_NE(error_of({"--json"}).find("--json needs a value"), std::string::npos);
  EXPECT_NE(error_of({"--bogus"}).find("unknown option '--bogus'"), std::string::npos);
}

}  // namespace
}  // namespace xttcp
