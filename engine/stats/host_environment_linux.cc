#include "engine/stats/host_environment.hh"

#include <ifaddrs.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "base/unique_fd.hh"
#include "topology/nic/nic_discovery.hh"

namespace xttcp {

namespace {

// The file's text with runs of whitespace made one space and the ends trimmed ("4096\t131072
// 6291456\n" -> "4096 131072 6291456"); "" when unreadable.
std::string read_value(const std::string& path) {
  std::ifstream in(path);
  std::string out, word;
  while (in >> word) out += (out.empty() ? "" : " ") + word;
  return out;
}

std::string sysctl_path(const std::string& proc_root, std::string_view name) {
  std::string path = proc_root + "/sys/";
  for (char c : name) path += c == '.' ? '/' : c;
  return path;
}

std::string interface_holding(const std::string& local_ip) {
  in6_addr want6{};
  in_addr want4{};
  const bool v6 = ::inet_pton(AF_INET6, local_ip.c_str(), &want6) == 1;
  if (!v6 && ::inet_pton(AF_INET, local_ip.c_str(), &want4) != 1) return {};
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return {};
  std::string found;
  for (const ifaddrs* a = list; a != nullptr && found.empty(); a = a->ifa_next) {
    if (a->ifa_addr == nullptr) continue;
    if (!v6 && a->ifa_addr->sa_family == AF_INET &&
        reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr.s_addr == want4.s_addr)
      found = a->ifa_name;
    if (v6 && a->ifa_addr->sa_family == AF_INET6 &&
        std::memcmp(&reinterpret_cast<const sockaddr_in6*>(a->ifa_addr)->sin6_addr, &want6,
                    sizeof want6) == 0)
      found = a->ifa_name;
  }
  ::freeifaddrs(list);
  return found;
}

// ETHTOOL_GDRVINFO: what `ethtool -i` prints. Loopback and some virtual devices answer nothing.
void read_driver_info(NicIdentity& nic) {
  UniqueFd fd(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd.valid() || nic.interface_name.size() >= IFNAMSIZ) return;
  ethtool_drvinfo info{};
  info.cmd = ETHTOOL_GDRVINFO;
  ifreq request{};
  std::memcpy(request.ifr_name, nic.interface_name.c_str(), nic.interface_name.size());
  request.ifr_data = reinterpret_cast<char*>(&info);
  if (::ioctl(fd.get(), SIOCETHTOOL, &request) != 0) return;
  auto text = [](const char* field, size_t size) {
    return std::string(field, strnlen(field, size));
  };
  nic.driver = text(info.driver, sizeof info.driver);
  nic.driver_version = text(info.version, sizeof info.version);
  nic.firmware = text(info.fw_version, sizeof info.fw_version);
  nic.bus = text(info.bus_info, sizeof info.bus_info);
}

}  // namespace

void read_host_environment(HostInfo& host, const std::string& proc_root,
                           const std::string& sys_root) {
  try {
    host.governor = read_value(sys_root + "/devices/system/cpu/cpu0/cpufreq/scaling_governor");
    host.smt = read_value(sys_root + "/devices/system/cpu/smt/control");
    host.dmi_vendor = read_value(sys_root + "/class/dmi/id/sys_vendor");
    host.dmi_product = read_value(sys_root + "/class/dmi/id/product_name");
    host.sysctls.clear();
    for (std::string_view name : environment_sysctls)
      host.sysctls.emplace_back(name, read_value(sysctl_path(proc_root, name)));
  } catch (const std::exception&) {  // allocation only; keep what was read
  }
}

// The parts of the NIC a driver update can change, one line each (NicIdentity); "" where the
// driver does not say.
void add_nic_settings(NicIdentity& nic) {
  Expected<NicInfo> info = discover_nic(nic.interface_name);
  if (!info) return;
  const std::string on_off[] = {"off", "on"};
  if (info->channels)
    nic.channels = fmt::format("rx {} tx {} combined {} other {}", info->channels->rx,
                               info->channels->tx, info->channels->combined, info->channels->other);
  if (info->rings) nic.rings = fmt::format("rx {} tx {}", info->rings->rx, info->rings->tx);
  if (const auto& c = info->coalescing; c)
    nic.coalescing = fmt::format(
        "rx-usecs {} tx-usecs {} rx-frames {} tx-frames {} adaptive-rx {} adaptive-tx {}",
        c->rx_usecs, c->tx_usecs, c->rx_frames, c->tx_frames, on_off[c->adaptive_rx],
        on_off[c->adaptive_tx]);
  if (info->offloads)
    for (const auto& [name, on] : info->offloads->features)
      nic.offloads += fmt::format("{}{} {}", nic.offloads.empty() ? "" : ", ", name, on_off[on]);
  if (info->irqs) {
    std::set<int> cpus;
    int queue_irqs = 0;
    for (const NicIrq& irq : *info->irqs) {
      if (irq.kind == QueueKind::other) continue;
      ++queue_irqs;
      if (irq.effective_affinity)
        cpus.insert(irq.effective_affinity->begin(), irq.effective_affinity->end());
    }
    std::string list;
    for (int cpu : cpus) list += fmt::format("{}{}", list.empty() ? "" : ",", cpu);
    nic.queue_irqs = fmt::format("{} queue IRQs on CPUs {}", queue_irqs, list.empty() ? "-" : list);
  }
}

std::optional<NicIdentity> read_nic_identity(const std::string& local_ip,
                                             const std::string& sys_root) {
  try {
    NicIdentity nic;
    nic.interface_name = interface_holding(local_ip);
    if (nic.interface_name.empty()) return std::nullopt;
    const std::string dir = sys_root + "/class/net/" + nic.interface_name;
    const std::string mtu = read_value(dir + "/mtu");
    nic.mtu = static_cast<uint32_t>(std::strtoul(mtu.c_str(), nullptr, 10));
    read_driver_info(nic);
    std::error_code error;  // the sysfs link names the driver where ethtool does not answer
    if (nic.driver.empty())
      nic.driver = std::filesystem::read_symlink(dir + "/device/driver", error).filename().string();
    add_nic_settings(nic);
    return nic;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace xttcp
