// The pure half of Windows NIC discovery: what one GetIfTable2 row (MIB_IF_ROW2) says, copied
// into a plain struct, becomes the portable NicInfo. No Windows header here, so it builds and is
// unit-tested on Linux too; nic_discovery_windows.cc fills the row and asks the OS for RSS.
// What IP Helper does not give (driver version, bus, NUMA node, queues, IRQs, RSS key and
// table) is an Error "not available: ..." naming where Windows keeps it.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.hh"
#include "topology/nic/nic_info.hh"

namespace xttcp {

// The fields of MIB_IF_ROW2 that xttcp reads, strings already UTF-8.
struct WindowsIfRow {
  std::string alias;        // "Ethernet 2": the name users see and pass to --nic
  std::string luid_name;    // "ethernet_32768" (ConvertInterfaceLuidToName); "" if none
  std::string description;  // "Intel(R) Ethernet Controller E810-C": the adapter's device name
  std::uint32_t mtu = 0;    // 0xffffffff on loopback: none
  std::uint64_t transmit_bps = 0, receive_bps = 0;  // link speeds; 0 or ~0: unknown
  std::uint32_t if_type = 0;                        // IFTYPE: 6 Ethernet, 24 loopback, 71 Wi-Fi
  std::uint32_t physical_medium = 0;                // NDIS_PHYSICAL_MEDIUM: 14 802.3, 0 unspecified
  bool hardware_interface = false;                  // InterfaceAndOperStatusFlags
  bool filter_interface = false;
  bool connector_present = false;
  std::uint32_t oper_status = 0;  // IF_OPER_STATUS: 1 up, 2 down, ... 7 lower layer down
};

inline constexpr std::uint32_t kIfTypeSoftwareLoopback = 24;  // IF_TYPE_SOFTWARE_LOOPBACK
inline constexpr std::uint32_t kIfOperStatusUp = 1;           // IfOperStatusUp

// A row with a device behind it: a hardware interface (or one with a connector), not loopback
// and not one of the filter drivers' stacked rows ("Ethernet-WFP Native MAC Layer ...-0000").
bool is_device_interface(const WindowsIfRow& row);

// `wanted` names this row: its alias (case-insensitive, as Windows compares them) or its LUID
// name ("ethernet_32768").
bool names_interface(const WindowsIfRow& row, const std::string& wanted);

// "up", "down", "testing", "unknown", "dormant", "not present", "lower layer down"; else
// "status N".
std::string oper_status_name(std::uint32_t oper_status);

// The NicInfo of `row`. `rss_enabled`: SIO_QUERY_RSS_SCALABILITY_INFO's answer, or why there
// is none; either way the RSS key and table stay "not available", the answer saying what was
// learnt.
NicInfo nic_info_from_row(const WindowsIfRow& row, const Expected<bool>& rss_enabled);

}  // namespace xttcp
