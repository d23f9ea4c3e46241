// Flows spread over the receiver's RX queues on purpose: the RSS description's wire form read
// as hostile input, and the source ports chosen by the Toeplitz hash.
#include <gtest/gtest.h>

#include <set>

#include "engine/rss/rss_json.hh"
#include "engine/rss/source_ports.hh"
#include "topology/nic/rss_hash.hh"

namespace xttcp {
namespace {

RssDescription described(std::uint32_t queues, std::size_t table = 128) {
  RssDescription rss;
  rss.nic = "eth1";
  rss.key.assign(default_rss_key.begin(), default_rss_key.end());
  for (std::size_t i = 0; i < table; ++i) rss.indirection.push_back(i % queues);
  rss.queues = queues;
  rss.hash_fields = {{"tcp4", "src-ip dst-ip src-port dst-port"}};
  return rss;
}

SourcePortRequest request(std::size_t flows, std::uint16_t first_port = 32768) {
  SourcePortRequest r;
  r.sender = {10, 0, 0, 1};
  r.receiver = {10, 0, 0, 2};
  for (std::size_t i = 0; i < flows; ++i) r.destination_ports.push_back(5001 + i % 2);
  r.first_port = first_port;
  r.last_port = 60999;
  r.start = 1234;
  return r;
}

std::uint32_t queue_of(const RssDescription& rss, const SourcePortRequest& r, std::size_t flow,
                       std::uint16_t port) {
  FlowTuple tuple;
  tuple.source = r.sender;
  tuple.destination = r.receiver;
  tuple.source_port = port;
  tuple.destination_port = r.destination_ports[flow];
  return static_cast<std::uint32_t>(rss_queue(rss_hash(rss.key, tuple, true), rss.indirection));
}

TEST(SourcePorts, SpreadEvenlyAndHashWhereTheySay) {
  const RssDescription rss = described(4);
  const SourcePortRequest r = request(10);
  auto choice = choose_source_ports(rss, r, [](std::uint16_t) { return true; });
  ASSERT_TRUE(choice) << choice.error().message;
  EXPECT_EQ(choice->flows_per_queue, (std::vector<std::uint32_t>{3, 3, 2, 2}));
  EXPECT_EQ(choice->off_target, 0u);
  std::set<std::uint16_t> distinct(choice->ports.begin(), choice->ports.end());
  EXPECT_EQ(distinct.size(), 10u);
  for (std::size_t i = 0; i < choice->ports.size(); ++i)  // checked by the hash itself
    EXPECT_EQ(queue_of(rss, r, i, choice->ports[i]), choice->queues[i]) << "flow " << i;
}

TEST(SourcePorts, PortsInUseAreSkippedForTheNextOnTheSameQueue) {
  const RssDescription rss = described(4);
  const SourcePortRequest r = request(8);
  auto free_choice = choose_source_ports(rss, r, [](std::uint16_t) { return true; });
  ASSERT_TRUE(free_choice);
  const std::set<std::uint16_t> busy(free_choice->ports.begin(), free_choice->ports.end());
  auto choice = choose_source_ports(rss, r, [&](std::uint16_t port) { return !busy.count(port); });
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->flows_per_queue, free_choice->flows_per_queue);
  EXPECT_GT(choice->ports_in_use, 0u);
  for (std::size_t i = 0; i < choice->ports.size(); ++i) {
    EXPECT_EQ(busy.count(choice->ports[i]), 0u);
    EXPECT_EQ(queue_of(rss, r, i, choice->ports[i]), choice->queues[i]);
  }
}

TEST(SourcePorts, TheReceiversWorkerQueuesWin) {
  RssDescription rss = described(4);
  rss.port_queues = {{5001, 3}, {5002, 1}};
  const SourcePortRequest r = request(6);
  auto choice = choose_source_ports(rss, r, [](std::uint16_t) { return true; });
  ASSERT_TRUE(choice);
  for (std::size_t i = 0; i < choice->queues.size(); ++i)
    EXPECT_EQ(choice->queues[i], r.destination_ports[i] == 5001 ? 3u : 1u);
}

TEST(SourcePorts, AQueueNoTableEntryNamesIsNeverWanted) {
  RssDescription rss = described(4);
  for (auto& entry : rss.indirection) entry = entry % 2;  // queues 2 and 3 unreachable
  auto choice = choose_source_ports(rss, request(6), [](std::uint16_t) { return true; });
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->flows_per_queue, (std::vector<std::uint32_t>{3, 3, 0, 0}));
}

TEST(SourcePorts, BoundedWhenNoPortIsFree) {
  auto choice =
      choose_source_ports(described(4), request(2, 60990), [](std::uint16_t) { return false; });
  ASSERT_FALSE(choice);
  EXPECT_EQ(choice.error().message, "no free source port in 60990..60999 for flow 0");
  auto too_many =
      choose_source_ports(described(4), request(11, 60990), [](std::uint16_t) { return true; });
  ASSERT_FALSE(too_many);
}

TEST(SourcePorts, ARangeTooSmallForEvenStillGivesEveryFlowAPort) {
  // 10 candidates for 10 flows: queues run out of ports, the rest take whatever is left.
  auto choice =
      choose_source_ports(described(4), request(10, 60990), [](std::uint16_t) { return true; });
  ASSERT_TRUE(choice) << choice.error().message;
  std::set<std::uint16_t> distinct(choice->ports.begin(), choice->ports.end());
  EXPECT_EQ(distinct.size(), 10u);
  std::uint32_t total = 0;
  for (std::uint32_t count : choice->flows_per_queue) total += count;
  EXPECT_EQ(total, 10u);
}

TEST(RssJson, RoundTrips) {
  RssDescription rss = described(4, 16);
  rss.port_queues = {{5001, 2}};
  const std::string hello =
      nlohmann::ordered_json{{"type", "hello"}, {"rss", rss_to_json(rss)}}.dump();
  auto read = read_peer_rss(hello);
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_TRUE(read->rss);
  EXPECT_EQ(read->rss->key, rss.key);
  EXPECT_EQ(read->rss->indirection, rss.indirection);
  EXPECT_EQ(read->rss->queues, 4u);
  EXPECT_EQ(read->rss->hash_fields, rss.hash_fields);
  EXPECT_EQ(read->rss->port_queues, rss.port_queues);
}

TEST(RssJson, AbsentOrNotAvailableIsAReasonNotAnError) {
  auto old = read_peer_rss(R"({"type":"hello"})");
  ASSERT_TRUE(old);
  EXPECT_FALSE(old->rss);
  EXPECT_NE(old->why_none.find("older version"), std::string::npos);
  auto none = read_peer_rss(R"({"rss":{"not_available":"lo: not available: no RSS\u0007"}})");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->why_none, "the receiver has no RSS description: lo: not available: no RSS?");
}

std::string refusal(const std::string& rss) {
  auto read = read_peer_rss(R"({"type":"hello","rss":)" + rss + "}");
  return read ? "" : read.error().message;
}

TEST(RssJson, HostileFieldsAreRefusedInOneLine) {
  const std::string key40(80, 'a');
  EXPECT_EQ(refusal(R"({"key":")" + std::string(106, 'a') + R"(","queues":1,"indirection":[0]})"),
            "rss.key: 106 hex digits; an even number, 2 to 104");
  EXPECT_EQ(refusal(R"({"key":"zz","queues":1,"indirection":[0]})"), "rss.key: not hexadecimal");
  EXPECT_EQ(refusal(R"({"key":")" + key40 + R"(","queues":4097,"indirection":[0]})"),
            "rss.queues: not a whole number 0 to 4096");
  EXPECT_EQ(refusal(R"({"key":")" + key40 + R"(","queues":2,"indirection":[0,2]})"),
            "rss.indirection: queue 2 of 2 queues");
  EXPECT_EQ(refusal(R"({"key":")" + key40 + R"(","queues":2,"indirection":[-1]})"),
            "rss.indirection: not a whole number 0 to 4096");
  std::string big = "[";
  for (int i = 0; i < 4097; ++i) big += i ? ",0" : "0";
  EXPECT_EQ(refusal(R"({"key":")" + key40 + R"(","queues":1,"indirection":)" + big + "]}"),
            "rss.indirection: not an array of at most 4096 queues");
  EXPECT_EQ(refusal(R"({"key":")" + key40 +
                    R"(","queues":1,"indirection":[0],)"
                    R"("hash_fields":{"tcp4":"src-ip\n"}})"),
            "rss.hash_fields.tcp4: not printable text");
  EXPECT_EQ(refusal(R"({"key":")" + key40 +
                    R"(","queues":1,"indirection":[0],)"
                    R"("port_queues":[[70000,0]]})"),
            "rss.port_queues port: not a whole number 0 to 65535");
  EXPECT_EQ(refusal(R"({"queues":1,"indirection":[0]})"), "rss: needs key, queues and indirection");
  EXPECT_EQ(refusal(R"("eth0")"), "rss: not an object");
  EXPECT_EQ(refusal(R"({"not_available":7})"),
            "rss.not_available: not a string of at most 512 characters");
}

}  // namespace
}  // namespace xttcp
