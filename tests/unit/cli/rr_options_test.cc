// --rr and its options in the NTTTCP-for-Linux grammar (docs/rr.md): defaults, the sizes both
// ends use, and one line naming the option for every bad combination.
#include <gtest/gtest.h>

#include "tests/unit/cli/cli_test_util.hh"

namespace xttcp {
namespace {

using test::parse_error;
using test::parse_ok;

TEST(RrOptions, OffByDefaultAndStreamSizesUntouched) {
  const Command command = parse_ok("-s x");
  EXPECT_FALSE(command.spec.rr.on);
  EXPECT_EQ(command.spec.workload.send_buffer, defaults::sender_buffer);
}

TEST(RrOptions, RrDefaultsToSmallRequestsOnBothEnds) {
  for (const char* line : {"-s x --rr", "-r --rr", "--local --rr"}) {
    const Command command = parse_ok(line);
    EXPECT_TRUE(command.spec.rr.on) << line;
    EXPECT_EQ(command.spec.rr.depth, 1u) << line;
    EXPECT_EQ(command.spec.workload.send_buffer, rr_limits::default_request_bytes) << line;
    EXPECT_EQ(command.spec.workload.recv_buffer, rr_limits::default_request_bytes) << line;
    EXPECT_EQ(command.spec.rr.response_bytes(command.spec.workload.send_buffer),
              rr_limits::default_request_bytes)
        << line;
  }
}

TEST(RrOptions, SizesDepthAndDelay) {
  const Command sender = parse_ok("-s x --rr -b 1 --response-size 4k --rr-depth 16");
  EXPECT_EQ(sender.spec.workload.send_buffer, 1u);
  EXPECT_EQ(sender.spec.rr.response_bytes(1), 4096u);
  EXPECT_EQ(sender.spec.rr.depth, 16u);
  const Command receiver = parse_ok("-r --rr -b 1 --rr-delay-us 250");
  EXPECT_EQ(receiver.spec.workload.recv_buffer, 1u);
  EXPECT_EQ(receiver.spec.rr.delay_us, 250u);
  EXPECT_EQ(parse_ok("-u -s x --rr -b 8").spec.workload.send_buffer, 8u);
}

TEST(RrOptions, BadCombinationsNameTheOption) {
  EXPECT_NE(parse_error("-s x --rr-depth 2").find("--rr-depth is for --rr only"),
            std::string::npos);
  EXPECT_NE(parse_error("-r --response-size 10").find("--response-size"), std::string::npos);
  EXPECT_NE(parse_error("-s x --rr --rr-depth 0").find("--rr-depth: the depth must be 1..4096"),
            std::string::npos);
  EXPECT_NE(parse_error("-s x --rr --rr-depth 4097").find("--rr-depth"), std::string::npos);
  EXPECT_NE(parse_error("-s x --rr --response-size 0").find("--response-size"), std::string::npos);
  EXPECT_NE(parse_error("-r --rr --rr-delay-us 100001").find("--rr-delay-us"), std::string::npos);
  EXPECT_NE(parse_error("-s x --rr-delay-us 5 --rr").find("--rr-delay-us"), std::string::npos);
  EXPECT_NE(parse_error("-s x -u --rr -b 7").find("--rr -u"), std::string::npos);
  EXPECT_NE(parse_error("-s x -u --rr --response-size 4").find("--rr -u"), std::string::npos);
  EXPECT_NE(parse_error("-s x -u --rr --response-size 70000").find("--response-size"),
            std::string::npos);
  EXPECT_NE(parse_error("-s x --rr --zerocopy").find("--zerocopy"), std::string::npos);
  EXPECT_NE(parse_error("-s x --rr -B 1g").find("-B"), std::string::npos);
  EXPECT_NE(parse_error("-s x --rr -P 64 -n 32").find("at most 1024"), std::string::npos);
  // A UDP answer larger than its request goes only to a request that carries its flow and
  // token: never with -N, never below 14-byte requests (docs/rr.md).
  EXPECT_NE(parse_error("-r -u -N --rr -b 64 --response-size 100").find("with -N"),
            std::string::npos);
  EXPECT_NE(parse_error("-s x -u -N --rr -b 64 --response-size 100").find("with -N"),
            std::string::npos);
  EXPECT_NE(parse_error("-s x -u --rr -b 13 --response-size 100").find("-b 14 or more"),
            std::string::npos);
  EXPECT_EQ(parse_ok("-s x -u --rr -b 14 --response-size 100").spec.workload.send_buffer, 14u);
  EXPECT_EQ(parse_ok("-r -u -N --rr -b 100 --response-size 64").spec.rr.response_bytes(100), 64u);
  EXPECT_TRUE(parse_ok("-s x -N --rr -b 64 --response-size 100").spec.rr.on);  // TCP: no gate
}

}  // namespace
}  // namespace xttcp
