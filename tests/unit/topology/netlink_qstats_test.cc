// The netlink qstats parser (topology/nic/netlink_qstats.hh) on replies built here, shaped as the
// kernel's: nlmsghdr + genlmsghdr + attributes, a dump in several datagrams ending in NLMSG_DONE,
// refusals, and replies that break a bound. Then, read only, this machine's interfaces.
#include "topology/nic/netlink_qstats.hh"

#include <gtest/gtest.h>

#include <cstring>

#include "topology/nic/nic_discovery.hh"

namespace xttcp {
namespace {

using Bytes = std::vector<std::uint8_t>;
namespace nl = netlink;

constexpr std::uint16_t kFamily = 27;  // what the kernel might give "netdev"
constexpr std::uint32_t kIfindex = 3;
// Linux's errno numbers as the kernel writes them (a Windows build's EOPNOTSUPP is another).
constexpr std::int32_t kEnoent = 2, kEopnotsupp = 95;

// A small encoder of netlink messages, independent of the one under test.
struct Encoder {
  Bytes out;
  std::size_t start = 0;

  template <class T>
  void put(T value) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(&value);
    out.insert(out.end(), p, p + sizeof value);
  }
  void align() { out.resize((out.size() + 3) & ~std::size_t{3}, 0); }
  Encoder& message(std::uint16_t type, std::uint32_t seq, std::uint16_t flags = nl::kFlagMulti) {
    start = out.size();
    put<std::uint32_t>(0);
    put(type);
    put(flags);
    put(seq);
    put<std::uint32_t>(0);
    return *this;
  }
  Encoder& genl(std::uint8_t cmd) {
    out.push_back(cmd);
    out.push_back(1);
    put<std::uint16_t>(0);
    return *this;
  }
  Encoder& attr(std::uint16_t type, const void* data, std::size_t size) {
    put<std::uint16_t>(static_cast<std::uint16_t>(4 + size));
    put(type);
    const auto* p = static_cast<const std::uint8_t*>(data);
    out.insert(out.end(), p, p + size);
    align();
    return *this;
  }
  Encoder& u32(std::uint16_t type, std::uint32_t v) { return attr(type, &v, sizeof v); }
  Encoder& u64(std::uint16_t type, std::uint64_t v) { return attr(type, &v, sizeof v); }
  Encoder& end() {
    const auto length = static_cast<std::uint32_t>(out.size() - start);
    std::memcpy(out.data() + start, &length, sizeof length);
    return *this;
  }
  // One queue's message as the kernel writes it: ifindex, type, id, then its counters.
  Encoder& queue(std::uint32_t seq, std::uint32_t type, std::uint32_t id, std::uint64_t packets,
                 std::uint64_t bytes) {
    message(kFamily, seq).genl(nl::kNetdevCmdQstatsGet);
    u32(nl::kQstatsIfindex, kIfindex).u32(nl::kQstatsQueueType, type).u32(nl::kQstatsQueueId, id);
    const bool rx = type == nl::kQueueTypeRx;
    u64(rx ? nl::kQstatsRxPackets : nl::kQstatsTxPackets, packets);
    // bytes as a 4-byte "uint" when they fit, as the kernel's nla_put_uint does
    if (bytes <= 0xffffffffu)
      u32(rx ? nl::kQstatsRxBytes : nl::kQstatsTxBytes, static_cast<std::uint32_t>(bytes));
    else
      u64(rx ? nl::kQstatsRxBytes : nl::kQstatsTxBytes, bytes);
    u64(13, 7);  // rx-hw-drops: a counter xttcp does not read
    return end();
  }
  Encoder& done(std::uint32_t seq, std::int32_t error = 0) {
    message(nl::kDone, seq);
    put(error);
    return end();
  }
  Encoder& error(std::uint32_t seq, std::int32_t error) {
    message(nl::kError, seq, 0);
    put(error);
    // the request's header follows, as the kernel echoes it
    for (int i = 0; i < 4; ++i) put<std::uint32_t>(0);
    return end();
  }
};

Status feed(const Bytes& datagram, nl::QstatsDump& dump, std::uint32_t seq = 9) {
  return nl::parse_qstats_datagram(datagram, seq, kFamily, kIfindex, dump);
}

TEST(NetlinkQstats, RequestsAreShapedAsTheKernelExpects) {
  Bytes family = nl::family_request(5, "netdev");
  ASSERT_EQ(family.size(), 16u + 4u + 4u + 8u);  // header, genl, attr "netdev\0" padded
  std::uint32_t length;
  std::memcpy(&length, family.data(), 4);
  EXPECT_EQ(length, family.size());
  EXPECT_EQ(family[4], nl::kGenlIdCtrl);
  EXPECT_EQ(family[16], nl::kCtrlCmdGetFamily);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(family.data()) + 24), "netdev");

  Bytes dump = nl::qstats_request(6, kFamily, kIfindex);
  ASSERT_EQ(dump.size(), 16u + 4u + 8u + 8u);
  std::uint16_t type, flags;
  std::memcpy(&type, dump.data() + 4, 2);
  std::memcpy(&flags, dump.data() + 6, 2);
  EXPECT_EQ(type, kFamily);
  EXPECT_EQ(flags, nl::kFlagRequest | nl::kFlagDump);
  EXPECT_EQ(dump[16], nl::kNetdevCmdQstatsGet);
  std::uint32_t scope;
  std::memcpy(&scope, dump.data() + 32, 4);
  EXPECT_EQ(scope, nl::kScopeQueue);
}

TEST(NetlinkQstats, FamilyReplyGivesItsId) {
  Encoder e;
  e.message(nl::kGenlIdCtrl, 1, 0).genl(1);
  e.attr(nl::kCtrlAttrFamilyName, "netdev", 7);
  const std::uint16_t id = kFamily;
  e.attr(nl::kCtrlAttrFamilyId, &id, sizeof id);
  e.attr(6 | nl::kAttrNested, "\x08\x00\x01\x00\x01\x00\x00\x00", 8);  // ops: not entered
  e.end();
  auto reply = nl::parse_family_reply(e.out, 1);
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_EQ(reply->id, kFamily);
  EXPECT_EQ(reply->kernel_error, 0);

  Encoder missing;
  missing.error(1, -kEnoent);
  reply = nl::parse_family_reply(missing.out, 1);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->kernel_error, kEnoent);
  EXPECT_EQ(nl::qstats_refusal(reply->kernel_error),
            "not available: the kernel has no netlink netdev family (before 6.9)");
}

TEST(NetlinkQstats, AMultiPartDumpOfRxAndTxQueues) {
  Encoder first, second;
  first.queue(9, nl::kQueueTypeRx, 0, 1000, 1500000).queue(9, nl::kQueueTypeRx, 1, 10, 6000000000);
  second.queue(9, nl::kQueueTypeTx, 0, 500, 32000).queue(9, nl::kQueueTypeTx, 1, 7, 448);
  second.done(9);
  nl::QstatsDump dump;
  Status s = feed(first.out, dump);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_FALSE(dump.done);
  s = feed(second.out, dump);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(dump.done);
  EXPECT_EQ(dump.kernel_error, 0);
  ASSERT_EQ(dump.queues.size(), 2u);
  EXPECT_EQ(dump.queues[0].rx_packets, 1000u);
  EXPECT_EQ(dump.queues[0].rx_bytes, 1500000u);
  EXPECT_EQ(dump.queues[0].tx_packets, 500u);
  EXPECT_EQ(dump.queues[0].tx_bytes, 32000u);
  EXPECT_EQ(dump.queues[1].rx_bytes, 6000000000u);  // an 8-byte uint
  EXPECT_EQ(dump.queues[1].tx_bytes, 448u);

  // A message after NLMSG_DONE is refused.
  Encoder late;
  late.queue(9, nl::kQueueTypeRx, 2, 1, 1);
  s = feed(late.out, dump);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("after the dump ended"), std::string::npos);
}

TEST(NetlinkQstats, AQueueWithoutSomeCounterLeavesItUnknown) {
  Encoder e;
  e.message(kFamily, 9).genl(nl::kNetdevCmdQstatsGet);
  e.u32(nl::kQstatsIfindex, kIfindex).u32(nl::kQstatsQueueType, nl::kQueueTypeRx);
  e.u32(nl::kQstatsQueueId, 3).u32(nl::kQstatsRxBytes, 99).end();
  e.done(9);
  nl::QstatsDump dump;
  ASSERT_TRUE(feed(e.out, dump));
  EXPECT_FALSE(dump.queues[3].rx_packets);
  EXPECT_EQ(dump.queues[3].rx_bytes, 99u);
  EXPECT_FALSE(dump.queues[3].tx_bytes);
}

TEST(NetlinkQstats, TheKernelsRefusalEndsTheDumpWithItsErrno) {
  Encoder error;
  error.error(9, -kEopnotsupp);
  nl::QstatsDump dump;
  ASSERT_TRUE(feed(error.out, dump));
  EXPECT_TRUE(dump.done);
  EXPECT_EQ(dump.kernel_error, kEopnotsupp);
  EXPECT_EQ(nl::qstats_refusal(dump.kernel_error),
            "not available: the driver gives no per-queue statistics through netlink qstats "
            "(EOPNOTSUPP)");

  // A dump that fails once started says so in NLMSG_DONE.
  Encoder done;
  done.done(9, -kEopnotsupp);
  nl::QstatsDump later;
  ASSERT_TRUE(feed(done.out, later));
  EXPECT_EQ(later.kernel_error, kEopnotsupp);
}

// Each reply breaks one rule; each is refused whole with the rule named.
void expect_refused(const Bytes& datagram, const std::string& rule) {
  nl::QstatsDump dump;
  Status s = feed(datagram, dump);
  ASSERT_FALSE(s) << "accepted; expected: " << rule;
  EXPECT_NE(s.error().message.find(rule), std::string::npos) << s.error().message;
  EXPECT_EQ(s.error().message.rfind("not available: a malformed netlink qstats reply: ", 0), 0u)
      << s.error().message;
}

TEST(NetlinkQstats, MalformedRepliesAreRefused) {
  Encoder good;
  good.queue(9, nl::kQueueTypeRx, 0, 1, 2);

  Bytes short_header(good.out.begin(), good.out.begin() + 10);
  expect_refused(short_header, "fewer than a netlink header");

  Bytes cut(good.out.begin(), good.out.end() - 4);  // the message says more than arrived
  expect_refused(cut, "76 bytes where 72 were left");

  Bytes oversized_attr = good.out;  // the ifindex attribute claims 200 bytes
  const std::uint16_t big = 200;
  std::memcpy(oversized_attr.data() + 20, &big, 2);
  expect_refused(oversized_attr, "attribute 1 of 200 bytes");

  Bytes tiny_attr = good.out;  // an attribute shorter than its own header
  const std::uint16_t three = 3;
  std::memcpy(tiny_attr.data() + 20, &three, 2);
  expect_refused(tiny_attr, "attribute 1 of 3 bytes");

  Encoder odd_counter;
  odd_counter.message(kFamily, 9).genl(nl::kNetdevCmdQstatsGet);
  odd_counter.u32(nl::kQstatsIfindex, kIfindex).u32(nl::kQstatsQueueType, 0);
  odd_counter.u32(nl::kQstatsQueueId, 0).attr(nl::kQstatsRxPackets, "\1\2", 2).end();
  expect_refused(odd_counter.out, "rx-packets of 2 bytes, neither 4 nor 8");

  Encoder nested;
  const std::uint32_t zero = 0;
  nested.message(kFamily, 9).genl(nl::kNetdevCmdQstatsGet);
  nested.attr(nl::kQstatsIfindex | nl::kAttrNested, &zero, 4).end();
  expect_refused(nested.out, "ifindex of 4 bytes, nested");

  Encoder far_queue;
  far_queue.queue(9, nl::kQueueTypeRx, 5000, 1, 1);
  expect_refused(far_queue.out, "queue-id 5000 beyond 4095");

  Encoder bad_type;
  bad_type.queue(9, 7, 0, 1, 1);
  expect_refused(bad_type.out, "queue-type 7, neither rx nor tx");

  Encoder twice;
  twice.queue(9, nl::kQueueTypeTx, 1, 1, 1).queue(9, nl::kQueueTypeTx, 1, 1, 1);
  expect_refused(twice.out, "tx queue 1 twice");

  Encoder other_seq;
  other_seq.queue(8, nl::kQueueTypeRx, 0, 1, 1);
  expect_refused(other_seq.out, "sequence 8, asked 9");

  Encoder other_if;
  other_if.message(kFamily, 9).genl(nl::kNetdevCmdQstatsGet);
  other_if.u32(nl::kQstatsIfindex, 4).u32(nl::kQstatsQueueType, 0).u32(nl::kQstatsQueueId, 0);
  other_if.end();
  expect_refused(other_if.out, "interface 4, asked 3");

  Encoder no_id;
  no_id.message(kFamily, 9).genl(nl::kNetdevCmdQstatsGet).u32(nl::kQstatsIfindex, kIfindex).end();
  expect_refused(no_id.out, "without ifindex, queue-type or queue-id");

  Encoder stranger;
  stranger.message(kFamily + 1, 9).genl(nl::kNetdevCmdQstatsGet).end();
  expect_refused(stranger.out, "message type 28, not netdev's 27");

  Encoder bad_errno;
  bad_errno.error(9, 5);
  expect_refused(bad_errno.out, "carrying 5, not a negative errno");
}

// This machine, read only (no traffic): the interface toward the default route, when it has one.
// qstats answers or is refused with a reason; either way no malformed reply.
TEST(NetlinkQstats, ThisMachinesInterfacesReadOnly) {
  for (const std::string& name : device_interfaces()) {
    auto queues = read_qstats(name);
    if (!queues) {
      EXPECT_EQ(queues.error().message.rfind("not available: ", 0), 0u) << queues.error().message;
      EXPECT_EQ(queues.error().message.find("malformed"), std::string::npos)
          << queues.error().message;
      std::printf("%s: %s\n", name.c_str(), queues.error().message.c_str());
      continue;
    }
    EXPECT_FALSE(queues->empty());
    for (const auto& [queue, c] : *queues) {
      EXPECT_GE(queue, 0);
      std::printf("%s queue %d: rx %s packets %s bytes, tx %s packets %s bytes\n", name.c_str(),
                  queue, c.rx_packets ? std::to_string(*c.rx_packets).c_str() : "-",
                  c.rx_bytes ? std::to_string(*c.rx_bytes).c_str() : "-",
                  c.tx_packets ? std::to_string(*c.tx_packets).c_str() : "-",
                  c.tx_bytes ? std::to_string(*c.tx_bytes).c_str() : "-");
    }
  }
}

}  // namespace
}  // namespace xttcp
