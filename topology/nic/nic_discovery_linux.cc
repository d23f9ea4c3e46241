// Linux NIC discovery: SIOCETHTOOL ioctls on a datagram socket, /sys/class/net/IF and
// /proc/irq, /proc/interrupts (see nic_discovery.hh). Parsing lives in nic_parse.cc.
#include <dirent.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "base/read_file.hh"
#include "base/socket_address.hh"
#include "base/unique_fd.hh"
#include "topology/nic/netlink_qstats.hh"
#include "topology/nic/nic_discovery.hh"
#include "topology/nic/nic_parse.hh"
#include "topology/topology.hh"

namespace xttcp {
namespace {

namespace fs = std::filesystem;

static_assert(RXH_IP_SRC == (1 << 4) && RXH_IP_DST == (1 << 5) && RXH_L4_B_0_1 == (1 << 6) &&
                  RXH_L4_B_2_3 == (1 << 7) && static_cast<unsigned>(RXH_DISCARD) == (1U << 31),
              "describe_hash_fields() names the RXH_* bits by these values");

Expected<int> read_sysfs_int(const std::string& path) {
  Expected<std::string> text = read_whole_file(path);
  if (!text) return text.error();
  try {
    return std::stoi(*text);
  } catch (...) {
    return fail(fmt::format("{} holds no number", path));
  }
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

Expected<std::vector<int>> read_cpu_list(const std::string& path) {
  Expected<std::string> text = read_whole_file(path);
  if (!text) return text.error();
  std::string list = trimmed(*text);
  if (list.empty()) return std::vector<int>{};
  return parse_cpu_list(list);
}

// One SIOCETHTOOL request; the error names the command and the reason.
class Ethtool {
 public:
  explicit Ethtool(std::string ifname)
      : ifname_(std::move(ifname)), fd_(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {}

  Status call(void* request, const char* what) const {
    if (!fd_.valid()) return fail(fmt::format("no socket for ethtool: {}", std::strerror(errno)));
    ifreq ifr{};
    std::snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname_.c_str());
    ifr.ifr_data = static_cast<char*>(request);
    if (::ioctl(fd_.get(), SIOCETHTOOL, &ifr) == 0) return ok();
    const int error = errno;
    if (error == EOPNOTSUPP)
      return fail(fmt::format("not available: the driver does not report {}", what));
    if (error == EPERM || error == EACCES)
      return fail(fmt::format("not available: {} needs CAP_NET_ADMIN", what));
    return fail(fmt::format("not available: {}: {}", what, std::strerror(error)));
  }

 private:
  std::string ifname_;
  UniqueFd fd_;
};

Expected<NicDriver> read_driver(const Ethtool& ethtool) {
  ethtool_drvinfo info{};
  info.cmd = ETHTOOL_GDRVINFO;
  if (Status s = ethtool.call(&info, "driver info (ETHTOOL_GDRVINFO)"); !s) return s.error();
  return NicDriver{info.driver, info.version, info.fw_version, info.bus_info};
}

Expected<NicChannels> read_channels(const Ethtool& ethtool) {
  ethtool_channels c{};
  c.cmd = ETHTOOL_GCHANNELS;
  if (Status s = ethtool.call(&c, "channels (ETHTOOL_GCHANNELS)"); !s) return s.error();
  return NicChannels{c.rx_count, c.tx_count, c.other_count, c.combined_count,
                     c.max_rx,   c.max_tx,   c.max_other,   c.max_combined};
}

Expected<NicRings> read_rings(const Ethtool& ethtool) {
  ethtool_ringparam r{};
  r.cmd = ETHTOOL_GRINGPARAM;
  if (Status s = ethtool.call(&r, "ring sizes (ETHTOOL_GRINGPARAM)"); !s) return s.error();
  return NicRings{r.rx_pending, r.tx_pending, r.rx_max_pending, r.tx_max_pending};
}

// Each through its own legacy get ioctl (every driver answers them; ETHTOOL_GFEATURES would need
// the kernel's feature names first). A feature the driver does not answer is left out.
Expected<NicOffloads> read_offloads(const Ethtool& ethtool) {
  struct Query {
    const char* name;
    uint32_t cmd;
    uint32_t mask;  // ETHTOOL_GFLAGS answers bits; the others 0 or 1
  };
  static constexpr Query queries[] = {
      {"tso", ETHTOOL_GTSO, 1},
      {"gso", ETHTOOL_GGSO, 1},
      {"gro", ETHTOOL_GGRO, 1},
      {"lro", ETHTOOL_GFLAGS, ETH_FLAG_LRO},
      {"rx-checksum", ETHTOOL_GRXCSUM, 1},
      {"tx-checksum", ETHTOOL_GTXCSUM, 1},
  };
  NicOffloads offloads;
  for (const Query& q : queries) {
    ethtool_value value{};
    value.cmd = q.cmd;
    if (ethtool.call(&value, q.name))
      offloads.features.emplace_back(q.name, (value.data & q.mask) != 0);
  }
  if (offloads.features.empty())
    return fail("not available: the driver answers none of the offload queries");
  return offloads;
}

Expected<NicCoalescing> read_coalescing(const Ethtool& ethtool) {
  ethtool_coalesce c{};
  c.cmd = ETHTOOL_GCOALESCE;
  if (Status s = ethtool.call(&c, "interrupt coalescing (ETHTOOL_GCOALESCE)"); !s) return s.error();
  return NicCoalescing{c.rx_coalesce_usecs,
                       c.tx_coalesce_usecs,
                       c.rx_max_coalesced_frames,
                       c.tx_max_coalesced_frames,
                       c.use_adaptive_rx_coalesce != 0,
                       c.use_adaptive_tx_coalesce != 0};
}

Expected<NicRss> read_rss(const Ethtool& ethtool) {
  // First ask the sizes, then the table and key in one buffer after the header.
  ethtool_rxfh sizes{};
  sizes.cmd = ETHTOOL_GRSSH;
  if (Status s = ethtool.call(&sizes, "the RSS table and key (ETHTOOL_GRSSH)"); !s)
    return s.error();
  if (sizes.indir_size == 0 && sizes.key_size == 0)
    return fail(
        "not available: the driver has no RSS table or key (ETHTOOL_GRSSH gives 0 "
        "entries)");
  const std::size_t table_bytes = sizes.indir_size * sizeof(std::uint32_t);
  std::vector<std::uint8_t> buffer(sizeof(ethtool_rxfh) + table_bytes + sizes.key_size);
  auto* request = reinterpret_cast<ethtool_rxfh*>(buffer.data());
  request->cmd = ETHTOOL_GRSSH;
  request->indir_size = sizes.indir_size;
  request->key_size = sizes.key_size;
  if (Status s = ethtool.call(request, "the RSS table and key (ETHTOOL_GRSSH)"); !s)
    return s.error();
  NicRss rss;
  rss.hash_function = request->hfunc;
  rss.indirection.resize(request->indir_size);
  std::memcpy(rss.indirection.data(), request->rss_config, table_bytes);
  const std::uint8_t* key = buffer.data() + sizeof(ethtool_rxfh) + table_bytes;
  rss.key.assign(key, key + request->key_size);
  return rss;
}

std::vector<NicHashFields> read_hash_fields(const Ethtool& ethtool) {
  static constexpr struct {
    std::uint32_t flow;
    const char* name;
  } kFlows[] = {
      {TCP_V4_FLOW, "tcp4"}, {UDP_V4_FLOW, "udp4"}, {TCP_V6_FLOW, "tcp6"}, {UDP_V6_FLOW, "udp6"}};
  std::vector<NicHashFields> out;
  for (const auto& flow : kFlows) {
    ethtool_rxnfc request{};
    request.cmd = ETHTOOL_GRXFH;
    request.flow_type = flow.flow;
    NicHashFields fields{flow.name};
    if (Status s = ethtool.call(&request, "hashed fields (ETHTOOL_GRXFH)"); s)
      fields.fields = describe_hash_fields(request.data);
    else
      fields.fields = s.error();
    out.push_back(std::move(fields));
  }
  return out;
}

// The PCI function behind the interface: its device directory or, for virtio, the parent.
std::string pci_device_dir(const std::string& net_dir) {
  std::error_code error;
  fs::path device = fs::canonical(net_dir + "/device", error);
  if (error) return {};
  for (fs::path dir = device; dir.has_parent_path() && dir != dir.root_path();
       dir = dir.parent_path()) {
    if (fs::exists(dir / "msi_irqs") || fs::exists(dir / "numa_node")) return dir.string();
  }
  return device.string();
}

std::vector<int> msi_irqs(const std::string& pci_dir) {
  std::vector<int> irqs;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(pci_dir + "/msi_irqs", error)) {
    try {
      irqs.push_back(std::stoi(entry.path().filename().string()));
    } catch (...) {
    }
  }
  std::sort(irqs.begin(), irqs.end());
  return irqs;
}

Expected<std::vector<NicIrq>> read_irqs(const NicInfo& nic, const std::string& net_dir,
                                        const std::string& pci_dir) {
  if (!fs::exists(net_dir + "/device"))
    return fail(
        fmt::format("not available: {} is a virtual interface (no device, no IRQ)", nic.name));
  Expected<std::string> text = read_whole_file("/proc/interrupts");
  if (!text) return fail("not available: " + text.error().message);
  Expected<std::vector<InterruptLine>> lines = parse_proc_interrupts(*text);
  if (!lines) return fail("not available: " + lines.error().message);
  IrqNaming naming;
  naming.driver = nic.driver ? nic.driver->name : "";
  naming.ifname = nic.name;
  std::error_code error;
  naming.device = fs::canonical(net_dir + "/device", error).filename().string();
  naming.pci_address = nic.pci_address ? *nic.pci_address : "";
  naming.device_irqs = msi_irqs(pci_dir);
  Expected<std::vector<NicIrq>> irqs = map_queue_irqs(naming, *lines);
  if (!irqs) return fail("not available: " + irqs.error().message);
  for (NicIrq& irq : *irqs) {
    const std::string dir = fmt::format("/proc/irq/{}", irq.irq);
    irq.affinity = read_cpu_list(dir + "/smp_affinity_list");
    irq.effective_affinity = read_cpu_list(dir + "/effective_affinity_list");
  }
  return irqs;
}

std::vector<NicQueueSteering> read_steering(const std::string& net_dir) {
  std::vector<NicQueueSteering> out;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(net_dir + "/queues", error)) {
    const std::string name = entry.path().filename().string();
    NicQueueSteering queue;
    const bool rx = name.rfind("rx-", 0) == 0;
    if (!rx && name.rfind("tx-", 0) != 0) continue;
    queue.kind = rx ? QueueKind::rx : QueueKind::tx;
    try {
      queue.queue = std::stoi(name.substr(3));
    } catch (...) {
      continue;
    }
    const std::string file = entry.path().string() + (rx ? "/rps_cpus" : "/xps_cpus");
    // sysfs fails the read itself (ENOENT) where the kernel keeps no mask, e.g. XPS of a
    // single-queue device; the stream then reads nothing.
    Expected<std::string> text = read_whole_file(file);
    if (!text || trimmed(*text).empty())
      queue.cpus = fail(fmt::format("not available: the kernel gives no {} for this queue",
                                    rx ? "rps_cpus" : "xps_cpus"));
    else
      queue.cpus = parse_cpu_mask(*text);
    out.push_back(std::move(queue));
  }
  std::sort(out.begin(), out.end(), [](const NicQueueSteering& a, const NicQueueSteering& b) {
    return a.kind != b.kind ? a.kind < b.kind : a.queue < b.queue;
  });
  return out;
}

// IFLA_MAX_MTU of one RTM_GETLINK reply (rtnetlink; sysfs does not show the maximum MTU).
Expected<int> read_max_mtu(const std::string& ifname) {
  const unsigned index = ::if_nametoindex(ifname.c_str());
  if (index == 0) return fail(fmt::format("not available: no index for {}", ifname));
  UniqueFd fd(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
  if (!fd.valid()) return fail(fmt::format("not available: rtnetlink: {}", std::strerror(errno)));
  timeval timeout{2, 0};  // the kernel answers at once; never wait forever
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  struct {
    nlmsghdr header;
    ifinfomsg info;
  } request{};
  request.header.nlmsg_len = sizeof request;
  request.header.nlmsg_type = RTM_GETLINK;
  request.header.nlmsg_flags = NLM_F_REQUEST;
  request.info.ifi_family = AF_UNSPEC;
  request.info.ifi_index = static_cast<int>(index);
  if (::send(fd.get(), &request, sizeof request, 0) < 0)
    return fail(fmt::format("not available: rtnetlink: {}", std::strerror(errno)));
  std::vector<char> reply(64 * 1024);
  const ssize_t got = ::recv(fd.get(), reply.data(), reply.size(), 0);
  if (got < 0) return fail(fmt::format("not available: rtnetlink: {}", std::strerror(errno)));
  auto* header = reinterpret_cast<nlmsghdr*>(reply.data());
  if (!NLMSG_OK(header, static_cast<unsigned>(got)) || header->nlmsg_type != RTM_NEWLINK)
    return fail("not available: rtnetlink gave no link message");
  auto* info = static_cast<ifinfomsg*>(NLMSG_DATA(header));
  int length = static_cast<int>(IFLA_PAYLOAD(header));
  for (rtattr* attr = IFLA_RTA(info); RTA_OK(attr, length); attr = RTA_NEXT(attr, length)) {
    if (attr->rta_type == IFLA_MAX_MTU && RTA_PAYLOAD(attr) >= sizeof(std::uint32_t)) {
      std::uint32_t mtu = 0;
      std::memcpy(&mtu, RTA_DATA(attr), sizeof mtu);
      return static_cast<int>(mtu);
    }
  }
  return fail("not available: the kernel does not report IFLA_MAX_MTU");
}

template <class T>
Expected<T> not_available(Expected<T> value) {
  if (value || value.error().message.rfind("not available", 0) == 0) return value;
  return fail("not available: " + value.error().message);
}

// One generic netlink socket: requests out, one datagram at a time in, each checked to come from
// the kernel (port 0) and to fit the buffer (MSG_TRUNC gives its real size).
class GenlSocket {
 public:
  GenlSocket() : fd_(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC)) {
    if (!fd_.valid()) return;
    timeval timeout{1, 0};  // the kernel answers at once; never wait forever
    ::setsockopt(fd_.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    ::setsockopt(fd_.get(), SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    const int on = 1;  // the kernel checks a dump's filter attributes instead of ignoring them
    ::setsockopt(fd_.get(), SOL_NETLINK, NETLINK_GET_STRICT_CHK, &on, sizeof on);
  }
  Status opened() const {
    if (fd_.valid()) return ok();
    return fail(fmt::format("not available: generic netlink: {}", std::strerror(errno)));
  }
  Status send(const std::vector<std::uint8_t>& request) const {
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    if (::sendto(fd_.get(), request.data(), request.size(), 0,
                 reinterpret_cast<const sockaddr*>(&kernel), sizeof kernel) < 0)
      return fail(fmt::format("not available: generic netlink: {}", std::strerror(errno)));
    return ok();
  }
  Expected<std::span<const std::uint8_t>> receive() {
    sockaddr_nl from{};
    socklen_t from_size = sizeof from;
    const ssize_t got = ::recvfrom(fd_.get(), buffer_.data(), buffer_.size(), MSG_TRUNC,
                                   reinterpret_cast<sockaddr*>(&from), &from_size);
    if (got < 0)
      return fail(fmt::format("not available: generic netlink: {}",
                              errno == EAGAIN ? "no answer within 1 s" : std::strerror(errno)));
    if (static_cast<std::size_t>(got) > buffer_.size())
      return fail(fmt::format("not available: a generic netlink datagram of {} bytes, more than {}",
                              got, buffer_.size()));
    if (from.nl_family != AF_NETLINK || from.nl_pid != 0)
      return fail("not available: a generic netlink datagram not from the kernel");
    return std::span<const std::uint8_t>(buffer_.data(), static_cast<std::size_t>(got));
  }

 private:
  UniqueFd fd_;
  std::vector<std::uint8_t> buffer_ = std::vector<std::uint8_t>(netlink::kMaxDatagram);
};

}  // namespace

Expected<std::map<int, QueueCounters>> read_qstats(const std::string& ifname) {
  const unsigned index = ::if_nametoindex(ifname.c_str());
  if (index == 0) return fail(fmt::format("not available: no index for {}", ifname));
  GenlSocket socket;
  if (Status s = socket.opened(); !s) return s.error();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  if (Status s = socket.send(netlink::family_request(1, "netdev")); !s) return s.error();
  auto datagram = socket.receive();
  if (!datagram) return datagram.error();
  auto family = netlink::parse_family_reply(*datagram, 1);
  if (!family) return family.error();
  if (family->kernel_error != 0) return fail(netlink::qstats_refusal(family->kernel_error));
  if (Status s = socket.send(netlink::qstats_request(2, family->id, index)); !s) return s.error();
  netlink::QstatsDump dump;
  for (std::size_t part = 0; !dump.done; ++part) {
    if (part == netlink::kMaxDatagrams || std::chrono::steady_clock::now() > deadline)
      return fail("not available: the netlink qstats dump did not end within bounds");
    datagram = socket.receive();
    if (!datagram) return datagram.error();
    if (Status s = netlink::parse_qstats_datagram(*datagram, 2, family->id, index, dump); !s)
      return s.error();
  }
  if (dump.kernel_error != 0) return fail(netlink::qstats_refusal(dump.kernel_error));
  if (dump.queues.empty())
    return fail("not available: netlink qstats answered with no queue (the driver counts none)");
  return std::move(dump.queues);
}

Expected<std::map<int, QueueCounters>> read_queue_counters(const std::string& ifname,
                                                           QueueStatsSource source) {
  if (source == QueueStatsSource::netlink_qstats) return read_qstats(ifname);
  auto stats = read_nic_statistics(ifname);
  if (!stats) return stats.error();
  std::map<int, QueueCounters> queues = map_queue_stats(*stats);
  if (queues.empty())
    return fail(
        "not available: no per-queue packet or byte counter among the driver's statistics "
        "(ETHTOOL_GSTATS)");
  return queues;
}

Expected<QueueStatsRead> read_queue_counters(const std::string& ifname) {
  auto qstats = read_qstats(ifname);
  if (qstats) return QueueStatsRead{QueueStatsSource::netlink_qstats, std::move(*qstats)};
  auto ethtool = read_queue_counters(ifname, QueueStatsSource::ethtool);
  if (ethtool) return QueueStatsRead{QueueStatsSource::ethtool, std::move(*ethtool)};
  std::string why = ethtool.error().message;
  if (why.rfind("not available: ", 0) == 0) why.erase(0, 15);
  return fail(fmt::format("{}; {}", qstats.error().message, why));
}

Expected<std::vector<std::pair<std::string, std::uint64_t>>> read_nic_statistics(
    const std::string& ifname) {
  const Ethtool ethtool(ifname);
  const char* what = "statistics (ETHTOOL_GSTATS)";
  // How many (ETHTOOL_GSSET_INFO), then the names and the values: each a header and an array,
  // in one 8-byte aligned buffer.
  std::vector<std::uint64_t> info((sizeof(ethtool_sset_info) + sizeof(std::uint32_t) + 7) / 8);
  auto* sset = reinterpret_cast<ethtool_sset_info*>(info.data());
  sset->cmd = ETHTOOL_GSSET_INFO;
  sset->sset_mask = 1ULL << ETH_SS_STATS;
  if (Status s = ethtool.call(sset, what); !s) return s.error();
  const std::uint32_t count = (sset->sset_mask & (1ULL << ETH_SS_STATS)) ? sset->data[0] : 0;
  if (count == 0) return fail(fmt::format("not available: the driver does not report {}", what));
  if (count > 1u << 16)
    return fail(fmt::format("not available: {} counters is more than xttcp reads", count));
  std::vector<std::uint64_t> names((sizeof(ethtool_gstrings) + count * ETH_GSTRING_LEN + 7) / 8);
  auto* strings = reinterpret_cast<ethtool_gstrings*>(names.data());
  strings->cmd = ETHTOOL_GSTRINGS;
  strings->string_set = ETH_SS_STATS;
  strings->len = count;
  if (Status s = ethtool.call(strings, what); !s) return s.error();
  std::vector<std::uint64_t> values((sizeof(ethtool_stats) + 7) / 8 + count);
  auto* stats = reinterpret_cast<ethtool_stats*>(values.data());
  stats->cmd = ETHTOOL_GSTATS;
  stats->n_stats = count;
  if (Status s = ethtool.call(stats, what); !s) return s.error();
  std::vector<std::pair<std::string, std::uint64_t>> out;
  const std::uint32_t taken = std::min(count, std::min(strings->len, stats->n_stats));
  for (std::uint32_t i = 0; i < taken; ++i) {
    const char* name = reinterpret_cast<const char*>(strings->data) + i * ETH_GSTRING_LEN;
    out.emplace_back(std::string(name, strnlen(name, ETH_GSTRING_LEN)), stats->data[i]);
  }
  return out;
}

Expected<NicInfo> discover_nic(const std::string& ifname) {
  const std::string net_dir = "/sys/class/net/" + ifname;
  if (ifname.empty() || ifname.find('/') != std::string::npos || !fs::exists(net_dir))
    return fail(fmt::format("no network interface '{}'", ifname));
  NicInfo nic;
  nic.name = ifname;
  const Ethtool ethtool(ifname);
  nic.driver = read_driver(ethtool);
  const std::string pci_dir = pci_device_dir(net_dir);
  const bool has_device = fs::exists(net_dir + "/device");
  const std::string no_device =
      fmt::format("not available: {} is a virtual interface (no device)", ifname);
  if (!has_device) {
    nic.pci_address = fail(no_device);
    nic.numa_node = fail(no_device);
    nic.local_cpus = fail(no_device);
  } else {
    std::string address = fs::path(pci_dir).filename().string();
    if (fs::exists(pci_dir + "/msi_irqs") || fs::exists(pci_dir + "/numa_node"))
      nic.pci_address = address;
    else
      nic.pci_address = fail(fmt::format("not available: {} is not on PCI ({})", ifname, address));
    nic.numa_node = not_available(read_sysfs_int(pci_dir + "/numa_node"));
    nic.local_cpus = not_available(nic_local_cpus(ifname));
  }
  nic.mtu = not_available(read_sysfs_int(net_dir + "/mtu"));
  nic.speed_mbps = read_sysfs_int(net_dir + "/speed");  // EINVAL on the read: no speed
  if (!nic.speed_mbps || *nic.speed_mbps <= 0)
    nic.speed_mbps = fail("not available: the driver reports no link speed");
  nic.max_mtu = read_max_mtu(ifname);
  if (nic.max_mtu && *nic.max_mtu <= 0)
    nic.max_mtu = fail("not available: the kernel reports no maximum MTU");
  nic.channels = read_channels(ethtool);
  nic.rings = read_rings(ethtool);
  nic.coalescing = read_coalescing(ethtool);
  nic.offloads = read_offloads(ethtool);
  nic.rss = read_rss(ethtool);
  nic.hash_fields = read_hash_fields(ethtool);
  nic.irqs = read_irqs(nic, net_dir, pci_dir);
  nic.steering = read_steering(net_dir);
  nic.queue_counters = read_queue_counters(ifname);
  return nic;
}

namespace {

// The interface holding `local`, or "".
std::string interface_holding(const sockaddr_storage& local) {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return {};
  std::string name;
  for (ifaddrs* entry = list; entry != nullptr; entry = entry->ifa_next) {
    if (same_host_address(entry->ifa_addr, local)) {
      name = entry->ifa_name;
      break;
    }
  }
  ::freeifaddrs(list);
  return name;
}

}  // namespace

Expected<std::string> interface_toward(const std::string& address) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (int error = ::getaddrinfo(address.c_str(), "9", &hints, &found); error != 0)
    return fail(fmt::format("cannot resolve '{}': {}", address, ::gai_strerror(error)));
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> owned(found, ::freeaddrinfo);
  sockaddr_storage target{};
  std::memcpy(&target, found->ai_addr, found->ai_addrlen);
  if (std::string local = interface_holding(target); !local.empty()) return local;
  UniqueFd fd(::socket(found->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd.valid())
    return fail(fmt::format("no socket to find the route: {}", std::strerror(errno)));
  if (::connect(fd.get(), found->ai_addr, found->ai_addrlen) != 0)  // routes; sends nothing
    return fail(fmt::format("no route to {}: {}", address, std::strerror(errno)));
  sockaddr_storage local{};
  socklen_t length = sizeof local;
  if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&local), &length) != 0)
    return fail(fmt::format("no local address toward {}: {}", address, std::strerror(errno)));
  std::string name = interface_holding(local);
  if (name.empty()) return fail(fmt::format("no interface holds the address toward {}", address));
  return name;
}

TuningFacts read_tuning_facts() {
  TuningFacts facts;
  auto read_long = [](const std::string& path, int field) -> Expected<long long> {
    Expected<std::string> text = read_whole_file(path);
    if (!text) return text.error();
    std::istringstream in(*text);
    long long value = 0;
    for (int i = 0; i <= field; ++i) {
      if (!(in >> value)) return fail(fmt::format("{} has no field {}", path, field + 1));
    }
    return value;
  };
  facts.rmem_max = read_long("/proc/sys/net/core/rmem_max", 0);
  facts.wmem_max = read_long("/proc/sys/net/core/wmem_max", 0);
  facts.tcp_rmem_max = read_long("/proc/sys/net/ipv4/tcp_rmem", 2);
  facts.tcp_wmem_max = read_long("/proc/sys/net/ipv4/tcp_wmem", 2);
  bool running = false;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator("/proc", error)) {
    const std::string pid = entry.path().filename().string();
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    Expected<std::string> comm = read_whole_file(entry.path().string() + "/comm");
    if (comm && trimmed(*comm) == "irqbalance") running = true;
  }
  if (error)
    facts.irqbalance_running = fail("cannot list /proc: " + error.message());
  else
    facts.irqbalance_running = running;
  return facts;
}

bool is_loopback_interface(const std::string& ifname) { return ifname == "lo"; }

std::vector<std::string> device_interfaces() {
  std::vector<std::string> names;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator("/sys/class/net", error)) {
    if (fs::exists(entry.path() / "device")) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace xttcp
