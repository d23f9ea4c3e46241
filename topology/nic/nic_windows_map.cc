// MIB_IF_ROW2's fields to NicInfo (see nic_windows_map.hh).
#include "topology/nic/nic_windows_map.hh"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace xttcp {
namespace {

constexpr std::uint32_t kNoMtu = 0xffffffffu;  // what Windows gives loopback
constexpr std::uint64_t kUnknownSpeed = ~std::uint64_t{0};

bool same_ignoring_case(const std::string& a, const std::string& b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](unsigned char x, unsigned char y) {
           return std::tolower(x) == std::tolower(y);
         });
}

Expected<int> link_speed_mbps(const WindowsIfRow& row) {
  if (row.oper_status != kIfOperStatusUp)
    return fail(fmt::format("not available: {} is {} (no link speed)", row.alias,
                            oper_status_name(row.oper_status)));
  // Ethernet links are symmetric; where the two differ, the slower direction limits a test.
  std::uint64_t bps = 0;
  for (std::uint64_t speed : {row.transmit_bps, row.receive_bps}) {
    if (speed != 0 && speed != kUnknownSpeed) bps = bps == 0 ? speed : std::min(bps, speed);
  }
  if (bps == 0) return fail("not available: Windows reports no link speed for " + row.alias);
  const std::uint64_t mbps = bps / 1000000;
  if (mbps == 0 || mbps > 0x7fffffff)
    return fail(fmt::format("not available: a link speed of {} b/s is not a Mb/s figure", bps));
  return static_cast<int>(mbps);
}

Expected<NicRss> rss_reason(const Expected<bool>& rss_enabled) {
  const char* where =
      "its key and indirection table need NDIS (OID_GEN_RECEIVE_SCALE_PARAMETERS) or WMI "
      "(MSFT_NetAdapterRssSettingData; xttcp reads neither)";
  if (!rss_enabled)
    return fail(fmt::format("not available: {}; {}", rss_enabled.error().message, where));
  return fail(fmt::format("not available: RSS is {} (SIO_QUERY_RSS_SCALABILITY_INFO); {}",
                          *rss_enabled ? "on" : "off", where));
}

}  // namespace

bool is_device_interface(const WindowsIfRow& row) {
  return (row.hardware_interface || row.connector_present) && !row.filter_interface &&
         row.if_type != kIfTypeSoftwareLoopback;
}

bool names_interface(const WindowsIfRow& row, const std::string& wanted) {
  if (wanted.empty()) return false;
  return same_ignoring_case(row.alias, wanted) ||
         (!row.luid_name.empty() && same_ignoring_case(row.luid_name, wanted));
}

std::string oper_status_name(std::uint32_t oper_status) {
  switch (oper_status) {
    case 1: return "up";
    case 2: return "down";
    case 3: return "testing";
    case 4: return "unknown";
    case 5: return "dormant";
    case 6: return "not present";
    case 7: return "lower layer down";
    default: return fmt::format("status {}", oper_status);
  }
}

NicInfo nic_info_from_row(const WindowsIfRow& row, const Expected<bool>& rss_enabled) {
  NicInfo nic;
  nic.name = row.alias;
  if (row.description.empty()) {
    nic.driver = fail("not available: Windows gives no description for " + row.alias);
  } else {
    // IP Helper names the adapter, not its driver: the description stands in for the name.
    // Version and firmware need SetupAPI (DEVPKEY_Device_DriverVersion) or WMI.
    NicDriver driver;
    driver.name = row.description;
    nic.driver = driver;
  }
  const char* no_device_facts = "not available: IP Helper does not give it (SetupAPI would)";
  nic.pci_address = fail(no_device_facts);
  nic.numa_node = fail(no_device_facts);
  nic.local_cpus = fail(no_device_facts);
  if (row.mtu == 0 || row.mtu == kNoMtu || row.mtu > 0x7fffffff)
    nic.mtu = fail("not available: Windows reports no MTU for " + row.alias);
  else
    nic.mtu = static_cast<int>(row.mtu);
  nic.max_mtu = fail(
      "not available: the driver's advanced property *JumboPacket (registry or WMI; xttcp reads "
      "neither)");
  nic.speed_mbps = link_speed_mbps(row);
  const char* driver_property =
      "not available: a driver's advanced property on Windows (NDIS or WMI; xttcp reads neither)";
  nic.channels = fail(driver_property);
  nic.rings = fail(driver_property);
  nic.coalescing = fail(driver_property);
  nic.offloads = fail(driver_property);
  nic.rss = rss_reason(rss_enabled);
  nic.irqs = fail(
      "not available: Windows does not show applications a NIC's interrupts per queue (DPCs "
      "are counted per CPU)");
  nic.queue_counters = fail("not available: per-queue counters are read on Linux only");
  return nic;
}

}  // namespace xttcp
