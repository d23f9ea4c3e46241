// Per-queue packets and bytes from the kernel's generic netlink "netdev" family (its qstats-get
// dump, Documentation/netlink/specs/netdev.yaml), for drivers whose ETHTOOL_GSTATS names give
// none (virtio_net on recent kernels). Pure: the requests are encoded and the replies parsed
// here, on bytes, so tests feed it replies built by hand; nic_discovery_linux.cc moves the bytes
// over an AF_NETLINK socket. The wire layouts and numbers are the kernel's uapi (netlink.h,
// genetlink.h, netdev.h), written out so the parser builds and is tested on every platform.
//
// The kernel is trusted less than nothing: every message length, attribute length and queue id
// is checked against what was received and against the bounds below, and a reply that breaks
// one is refused whole (an Error saying which rule), never read past.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/status.hh"
#include "topology/nic/queue_stats.hh"

namespace xttcp::netlink {

// netlink.h: message header (16 bytes) and the control message types.
inline constexpr std::size_t kHeaderSize = 16;
inline constexpr std::uint16_t kNoop = 1, kError = 2, kDone = 3, kOverrun = 4;
inline constexpr std::uint16_t kFlagRequest = 0x1, kFlagMulti = 0x2, kFlagAck = 0x4,
                               kFlagDump = 0x300;  // NLM_F_ROOT | NLM_F_MATCH
inline constexpr std::uint16_t kAttrNested = 0x8000, kAttrNetByteOrder = 0x4000;
// genetlink.h: the genl header (4 bytes) and the controller that names families.
inline constexpr std::size_t kGenlHeaderSize = 4;
inline constexpr std::uint16_t kGenlIdCtrl = 0x10;
inline constexpr std::uint8_t kCtrlCmdGetFamily = 3;
inline constexpr std::uint16_t kCtrlAttrFamilyId = 1, kCtrlAttrFamilyName = 2;
// netdev.h (family "netdev", version 1).
inline constexpr std::uint8_t kNetdevVersion = 1;
inline constexpr std::uint8_t kNetdevCmdQstatsGet = 12;
inline constexpr std::uint16_t kQstatsIfindex = 1, kQstatsQueueType = 2, kQstatsQueueId = 3,
                               kQstatsScope = 4, kQstatsRxPackets = 8, kQstatsRxBytes = 9,
                               kQstatsTxPackets = 10, kQstatsTxBytes = 11;
inline constexpr std::uint32_t kQueueTypeRx = 0, kQueueTypeTx = 1;
inline constexpr std::uint32_t kScopeQueue = 1;

// What xttcp reads at most.
inline constexpr std::size_t kMaxDatagram = 64 * 1024;  // one recv (a dump part is <= 32 KiB)
inline constexpr std::size_t kMaxDatagrams = 1024;      // one dump
inline constexpr std::uint32_t kMaxQueueId = 4095;      // as the native JSON reader's 4096 queues

// The requests (host byte order, as netlink is).
std::vector<std::uint8_t> family_request(std::uint32_t seq, const std::string& family);
std::vector<std::uint8_t> qstats_request(std::uint32_t seq, std::uint16_t family,
                                         std::uint32_t ifindex);

// What the controller answered: the family's id, or the errno it refused with (ENOENT: the
// kernel has no such family).
struct FamilyReply {
  std::uint16_t id = 0;
  int kernel_error = 0;  // positive errno; 0 when `id` was read
};
// One datagram answering family_request(seq). Error: a malformed reply.
Expected<FamilyReply> parse_family_reply(std::span<const std::uint8_t> datagram, std::uint32_t seq);

// A qstats dump as it arrives, one datagram at a time.
struct QstatsDump {
  std::map<int, QueueCounters> queues;
  bool done = false;     // NLMSG_DONE or an error reply was read
  int kernel_error = 0;  // positive errno the kernel ended the dump with (EOPNOTSUPP: the
                         // driver gives no qstats); 0 when it ended well
  std::set<std::pair<int, std::uint32_t>> seen;  // (queue, type) read, so none is read twice
};
// Adds one datagram of the dump answering qstats_request(seq, family, ifindex) to `dump`. Skips the
// attributes it does not read (newer kernels add some) and descends into no nested attribute.
// Error, naming the rule broken: a message or attribute longer than what holds it or shorter than
// its header, a counter neither 4 nor 8 bytes, a queue id beyond kMaxQueueId, a queue type neither
// rx nor tx, a message for another interface or sequence, the same queue twice, a message after
// the dump ended.
Status parse_qstats_datagram(std::span<const std::uint8_t> datagram, std::uint32_t seq,
                             std::uint16_t family, std::uint32_t ifindex, QstatsDump& dump);

// "not available: ..." for an errno the kernel refused qstats with.
std::string qstats_refusal(int kernel_error);

}  // namespace xttcp::netlink
