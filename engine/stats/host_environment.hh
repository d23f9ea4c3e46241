// The environment of a run beyond HostInfo's basics, for comparing runs (a new driver version,
// another MTU, a tuned sysctl): CPU governor and SMT, DMI vendor and product, the socket and
// TCP sysctls that matter, and the driver of the interface the run used. Linux reads /proc,
// /sys and the ethtool ioctl; other systems leave the fields empty. Never fails: what cannot be
// read stays empty.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/result.hh"

namespace xttcp {

// The sysctls written into every result, in this order.
inline constexpr std::string_view environment_sysctls[] = {
    "net.core.rmem_max",
    "net.core.wmem_max",
    "net.ipv4.tcp_rmem",
    "net.ipv4.tcp_wmem",
    "net.ipv4.tcp_congestion_control",
    "net.core.default_qdisc",
    "net.core.busy_poll",
    "net.core.busy_read",
};

// Fills host.governor, smt, dmi_vendor, dmi_product and sysctls (roots: tests use fixtures).
void read_host_environment(HostInfo& host, const std::string& proc_root = "/proc",
                           const std::string& sys_root = "/sys");

// The interface holding `local_ip` (an address of this host, without port), its MTU and driver;
// nullopt when no interface holds that address.
std::optional<NicIdentity> read_nic_identity(const std::string& local_ip,
                                             const std::string& sys_root = "/sys");

}  // namespace xttcp
