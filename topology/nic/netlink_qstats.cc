#include "topology/nic/netlink_qstats.hh"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

namespace xttcp::netlink {

namespace {

// Linux's errno numbers, as the kernel puts them on the wire (the host's may differ).
constexpr int kEperm = 1, kEnoent = 2, kEnodev = 19, kEinval = 22, kEopnotsupp = 95;

constexpr std::size_t align4(std::size_t n) { return (n + 3) & ~std::size_t{3}; }

template <class T>
T load(const std::uint8_t* at) {
  T value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

template <class T>
void store(std::vector<std::uint8_t>& out, T value) {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(&value);
  out.insert(out.end(), bytes, bytes + sizeof value);
}

void pad(std::vector<std::uint8_t>& out) { out.resize(align4(out.size()), 0); }

void put_attr(std::vector<std::uint8_t>& out, std::uint16_t type, const void* data,
              std::size_t size) {
  store<std::uint16_t>(out, static_cast<std::uint16_t>(4 + size));
  store<std::uint16_t>(out, type);
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  out.insert(out.end(), bytes, bytes + size);
  pad(out);
}

// nlmsghdr (length, type, flags, seq, port id) + genlmsghdr (cmd, version, reserved).
constexpr std::size_t header_bytes = 16 + 4;

// Header + genl header; the length is patched by finish(). Written into a vector of its full
// size (the port id and reserved bytes stay 0: the kernel fills the port id in), not grown a
// field at a time, whose first insert GCC 12 takes for a write past a 0-byte buffer.
std::vector<std::uint8_t> start(std::uint16_t type, std::uint16_t flags, std::uint32_t seq,
                                std::uint8_t cmd, std::uint8_t version) {
  std::vector<std::uint8_t> out(header_bytes, 0);
  std::memcpy(out.data() + 4, &type, sizeof type);
  std::memcpy(out.data() + 6, &flags, sizeof flags);
  std::memcpy(out.data() + 8, &seq, sizeof seq);
  out[16] = cmd;
  out[17] = version;
  return out;
}

std::vector<std::uint8_t> finish(std::vector<std::uint8_t> out) {
  const auto length = static_cast<std::uint32_t>(out.size());
  std::memcpy(out.data(), &length, sizeof length);
  return out;
}

struct Message {
  std::uint16_t type = 0, flags = 0;
  std::uint32_t seq = 0;
  std::span<const std::uint8_t> payload;
};

// Splits a datagram into messages, each within what was received.
Expected<std::vector<Message>> messages(std::span<const std::uint8_t> datagram) {
  std::vector<Message> out;
  std::size_t at = 0;
  while (at < datagram.size()) {
    const std::size_t rest = datagram.size() - at;
    if (rest < kHeaderSize)
      return fail(fmt::format("{} bytes left over, fewer than a netlink header", rest));
    const auto length = load<std::uint32_t>(datagram.data() + at);
    if (length < kHeaderSize || length > rest)
      return fail(fmt::format("a netlink message of {} bytes where {} were left", length, rest));
    Message m;
    m.type = load<std::uint16_t>(datagram.data() + at + 4);
    m.flags = load<std::uint16_t>(datagram.data() + at + 6);
    m.seq = load<std::uint32_t>(datagram.data() + at + 8);
    m.payload = datagram.subspan(at + kHeaderSize, length - kHeaderSize);
    out.push_back(m);
    at += std::min<std::size_t>(align4(length), rest);
  }
  return out;
}

struct Attr {
  std::uint16_t type = 0;  // without the nested and byte-order flags
  bool nested = false;
  std::span<const std::uint8_t> value;
};

// The attributes after a genl header, one level only (nested ones are not entered).
Expected<std::vector<Attr>> attributes(std::span<const std::uint8_t> payload) {
  if (payload.size() < kGenlHeaderSize)
    return fail(fmt::format("a generic netlink message of {} bytes, shorter than its header",
                            payload.size()));
  std::span<const std::uint8_t> rest = payload.subspan(kGenlHeaderSize);
  std::vector<Attr> out;
  while (!rest.empty()) {
    if (rest.size() < 4)
      return fail(fmt::format("{} bytes left over, fewer than an attribute header", rest.size()));
    const auto length = load<std::uint16_t>(rest.data());
    const auto type = load<std::uint16_t>(rest.data() + 2);
    if (length < 4 || length > rest.size())
      return fail(fmt::format("attribute {} of {} bytes where {} were left",
                              type & ~(kAttrNested | kAttrNetByteOrder), length, rest.size()));
    out.push_back({static_cast<std::uint16_t>(type & ~(kAttrNested | kAttrNetByteOrder)),
                   (type & kAttrNested) != 0, rest.subspan(4, length - 4u)});
    rest = rest.subspan(std::min<std::size_t>(align4(length), rest.size()));
  }
  return out;
}

Expected<std::uint32_t> u32_of(const Attr& a, const char* name) {
  if (a.nested || a.value.size() != 4)
    return fail(fmt::format("{} of {} bytes{}, not a 4-byte number", name, a.value.size(),
                            a.nested ? ", nested" : ""));
  return load<std::uint32_t>(a.value.data());
}

// netdev.yaml's "uint": 4 or 8 bytes.
Expected<std::uint64_t> uint_of(const Attr& a, const char* name) {
  if (!a.nested && a.value.size() == 4) return std::uint64_t{load<std::uint32_t>(a.value.data())};
  if (!a.nested && a.value.size() == 8) return load<std::uint64_t>(a.value.data());
  return fail(fmt::format("{} of {} bytes{}, neither 4 nor 8", name, a.value.size(),
                          a.nested ? ", nested" : ""));
}

// The errno an NLMSG_ERROR or NLMSG_DONE carries (0: none), positive.
Expected<int> carried_error(const Message& m) {
  if (m.payload.size() < 4) {
    if (m.type == kDone) return 0;  // an old kernel's DONE carries nothing
    return fail("an error message shorter than its error number");
  }
  const auto value = load<std::int32_t>(m.payload.data());
  if (value > 0 || value < -4095)
    return fail(fmt::format("an error message carrying {}, not a negative errno", value));
  return -value;
}

Error refused(const std::string& what, const Error& why) {
  return fail(fmt::format("not available: a malformed {} reply: {}", what, why.message));
}

}  // namespace

std::vector<std::uint8_t> family_request(std::uint32_t seq, const std::string& family) {
  std::vector<std::uint8_t> out = start(kGenlIdCtrl, kFlagRequest, seq, kCtrlCmdGetFamily, 1);
  put_attr(out, kCtrlAttrFamilyName, family.c_str(), family.size() + 1);
  return finish(std::move(out));
}

std::vector<std::uint8_t> qstats_request(std::uint32_t seq, std::uint16_t family,
                                         std::uint32_t ifindex) {
  std::vector<std::uint8_t> out =
      start(family, kFlagRequest | kFlagDump, seq, kNetdevCmdQstatsGet, kNetdevVersion);
  put_attr(out, kQstatsIfindex, &ifindex, sizeof ifindex);
  put_attr(out, kQstatsScope, &kScopeQueue, sizeof kScopeQueue);
  return finish(std::move(out));
}

Expected<FamilyReply> parse_family_reply(std::span<const std::uint8_t> datagram,
                                         std::uint32_t seq) {
  const char* what = "netlink family";
  auto list = messages(datagram);
  if (!list) return refused(what, list.error());
  for (const Message& m : *list) {
    if (m.seq != seq) return refused(what, fail(fmt::format("sequence {}, asked {}", m.seq, seq)));
    if (m.type == kNoop) continue;
    if (m.type == kError || m.type == kDone) {
      auto error = carried_error(m);
      if (!error) return refused(what, error.error());
      if (*error != 0) return FamilyReply{0, *error};
      continue;  // an acknowledgement
    }
    if (m.type != kGenlIdCtrl)
      return refused(what, fail(fmt::format("message type {}, not the controller's", m.type)));
    auto attrs = attributes(m.payload);
    if (!attrs) return refused(what, attrs.error());
    for (const Attr& a : *attrs) {
      if (a.type != kCtrlAttrFamilyId) continue;
      if (a.nested || a.value.size() != 2)
        return refused(what, fail(fmt::format("a family id of {} bytes", a.value.size())));
      const auto id = load<std::uint16_t>(a.value.data());
      if (id == 0) return refused(what, fail("family id 0"));
      return FamilyReply{id, 0};
    }
    return refused(what, fail("no family id"));
  }
  return refused(what, fail("no answer"));
}

Status parse_qstats_datagram(std::span<const std::uint8_t> datagram, std::uint32_t seq,
                             std::uint16_t family, std::uint32_t ifindex, QstatsDump& dump) {
  const char* what = "netlink qstats";
  auto list = messages(datagram);
  if (!list) return refused(what, list.error());
  for (const Message& m : *list) {
    if (dump.done) return refused(what, fail("a message after the dump ended"));
    if (m.seq != seq) return refused(what, fail(fmt::format("sequence {}, asked {}", m.seq, seq)));
    if (m.type == kNoop) continue;
    if (m.type == kOverrun) return refused(what, fail("the kernel's buffer overran"));
    if (m.type == kError || m.type == kDone) {
      auto error = carried_error(m);
      if (!error) return refused(what, error.error());
      dump.kernel_error = *error;
      dump.done = true;
      continue;
    }
    if (m.type != family)
      return refused(what, fail(fmt::format("message type {}, not netdev's {}", m.type, family)));
    if (m.payload.size() >= 1 && m.payload[0] != kNetdevCmdQstatsGet)
      return refused(what, fail(fmt::format("command {}, not qstats-get", m.payload[0])));
    auto attrs = attributes(m.payload);
    if (!attrs) return refused(what, attrs.error());
    std::optional<std::uint32_t> index, type, queue;
    std::optional<std::uint64_t> rx_packets, rx_bytes, tx_packets, tx_bytes;
    for (const Attr& a : *attrs) {
      Status read = ok();
      auto take32 = [&](std::optional<std::uint32_t>& into, const char* name) {
        auto v = u32_of(a, name);
        if (v)
          into = *v;
        else
          read = v.error();
      };
      auto take64 = [&](std::optional<std::uint64_t>& into, const char* name) {
        auto v = uint_of(a, name);
        if (v)
          into = *v;
        else
          read = v.error();
      };
      switch (a.type) {
        case kQstatsIfindex: take32(index, "ifindex"); break;
        case kQstatsQueueType: take32(type, "queue-type"); break;
        case kQstatsQueueId: take32(queue, "queue-id"); break;
        case kQstatsRxPackets: take64(rx_packets, "rx-packets"); break;
        case kQstatsRxBytes: take64(rx_bytes, "rx-bytes"); break;
        case kQstatsTxPackets: take64(tx_packets, "tx-packets"); break;
        case kQstatsTxBytes: take64(tx_bytes, "tx-bytes"); break;
        default: break;  // counters xttcp does not read, and attributes of newer kernels
      }
      if (!read) return refused(what, read.error());
    }
    if (!index || !type || !queue)
      return refused(what, fail("a message without ifindex, queue-type or queue-id"));
    if (*index != ifindex)
      return refused(what, fail(fmt::format("interface {}, asked {}", *index, ifindex)));
    if (*type != kQueueTypeRx && *type != kQueueTypeTx)
      return refused(what, fail(fmt::format("queue-type {}, neither rx nor tx", *type)));
    if (*queue > kMaxQueueId)
      return refused(what, fail(fmt::format("queue-id {} beyond {}", *queue, kMaxQueueId)));
    if (!dump.seen.insert({static_cast<int>(*queue), *type}).second)
      return refused(what, fail(fmt::format("{} queue {} twice",
                                            *type == kQueueTypeRx ? "rx" : "tx", *queue)));
    QueueCounters& counters = dump.queues[static_cast<int>(*queue)];
    if (*type == kQueueTypeRx) {
      counters.rx_packets = rx_packets;
      counters.rx_bytes = rx_bytes;
    } else {
      counters.tx_packets = tx_packets;
      counters.tx_bytes = tx_bytes;
    }
  }
  return ok();
}

std::string qstats_refusal(int kernel_error) {
  switch (kernel_error) {
    case kEopnotsupp:
      return "not available: the driver gives no per-queue statistics through netlink qstats "
             "(EOPNOTSUPP)";
    case kEnoent: return "not available: the kernel has no netlink netdev family (before 6.9)";
    case kEnodev: return "not available: netlink qstats: no such interface (ENODEV)";
    case kEperm: return "not available: netlink qstats: not permitted (EPERM)";
    case kEinval:
      return "not available: the kernel refused the qstats request (EINVAL: qstats-get or its "
             "queue scope is newer than this kernel)";
    default:
      return fmt::format("not available: the kernel refused netlink qstats (errno {})",
                         kernel_error);
  }
}

}  // namespace xttcp::netlink
