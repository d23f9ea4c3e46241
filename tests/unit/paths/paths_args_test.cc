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
  EXPECT_EQ(r->workload.repeat, 3u);
  EXPECT_EQ(r->workload.buffer_bytes, 0u);  // the sender's own default
  EXPECT_EQ(r->port, 0);
}

TEST(PathsArgs, EveryOption) {
  auto r = parse({"--backends", "io_uring,epoll", "-u", "--rr", "-b", "1K", "--response-size",
                  "32", "--rr-depth", "4", "-P", "2", "-n", "3", "-t", "7", "--repeat", "5",
                  "-p", "30000", "--json", "-", "--runs-dir", "/tmp"});
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
  EXPECT_EQ(r->workload.repeat, 5u);
  EXPECT_EQ(r->port, 30000);
  EXPECT_EQ(*r->json_file, "-");
  EXPECT_EQ(*r->runs_dir, "/tmp");
}

TEST(PathsArgs, BadValuesNameTheOption) {
  EXPECT_NE(error_of({"--repeat", "0"}).find("--repeat: '0' is not a whole number from 1"),
            std::string::npos);
  EXPECT_NE(error_of({"-t", "x"}).find("-t:"), std::string::npos);
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
