// NIC discovery: reads what the OS says about an interface into a NicInfo (nic_info.hh).
// Linux: ethtool ioctls, sysfs and procfs directly (never the ethtool program's output).
// Windows: IP Helper and Winsock (nic_discovery_windows.cc, what they lack in docs/windows.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/status.hh"
#include "topology/nic/nic_info.hh"
#include "topology/nic/queue_stats.hh"

namespace xttcp {

// Everything the OS gives about `ifname`; parts it does not give are Errors with the reason.
// Error only when the interface does not exist: "no network interface 'eth9'".
Expected<NicInfo> discover_nic(const std::string& ifname);

// The interfaces with a device behind them (PCI, VMBus, virtio), by name; loopback, bridges,
// veth and other virtual interfaces are left out.
std::vector<std::string> device_interfaces();

// A loopback interface: "lo" on Linux, the software-loopback row ("Loopback Pseudo-Interface
// 1") on Windows. A run toward one watches no NIC's queues.
bool is_loopback_interface(const std::string& ifname);

// The interface a packet to `address` leaves by (a connected UDP socket's local address, no
// packet sent), or the one holding `address` when it is local. Error: "no route to 10.9.9.9:
// Network is unreachable", "cannot resolve 'x': ...".
Expected<std::string> interface_toward(const std::string& address);

// The driver's own counters (ETHTOOL_GSTRINGS + ETHTOOL_GSTATS), by name, in its order.
// Error: "not available: the driver does not report statistics (ETHTOOL_GSTATS)".
Expected<std::vector<std::pair<std::string, std::uint64_t>>> read_nic_statistics(
    const std::string& ifname);

// Per-queue packets and bytes through the generic netlink netdev family's qstats-get dump
// (netlink_qstats.hh): an AF_NETLINK socket with a 1 s receive timeout, at most 2 s in all.
// Error "not available: ..." with the kernel's refusal (EOPNOTSUPP: the driver has none).
Expected<std::map<int, QueueCounters>> read_qstats(const std::string& ifname);

// The per-queue counters from `source`: read_qstats, or the driver's ETHTOOL_GSTATS names
// mapped (map_queue_stats). Error when the source gives no queue, saying why.
Expected<std::map<int, QueueCounters>> read_queue_counters(const std::string& ifname,
                                                           QueueStatsSource source);

// The source chosen (queue_stats.hh: qstats when the kernel answers it with a queue, else the
// driver's names) and what it reads now. Error giving both sources' reasons.
Expected<QueueStatsRead> read_queue_counters(const std::string& ifname);

// net.core.{r,w}mem_max, tcp_{r,w}mem and whether irqbalance runs (a process named so).
TuningFacts read_tuning_facts();

}  // namespace xttcp
