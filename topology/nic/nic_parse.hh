// Pure parsers for what Linux says about a NIC in procfs and sysfs, and the map from each
// driver's IRQ names to its queues. No file access here: nic_linux.cc reads, these interpret,
// and the unit tests feed them fixtures shaped like real ena, gve, mana, mlx5 and virtio_net
// machines.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hh"
#include "topology/nic/nic_info.hh"

namespace xttcp {

// One numbered line of /proc/interrupts. Lines without a number (NMI, LOC, ERR...) are skipped.
struct InterruptLine {
  int irq = 0;
  std::vector<std::uint64_t> per_cpu;  // one count per CPU column of the header
  std::string name;                    // the action name, the line's last word
};

// Error for text without the "CPU0 CPU1 ..." header or with a numbered line that has fewer
// counts than the header has CPUs: "/proc/interrupts line 'x': ...".
Expected<std::vector<InterruptLine>> parse_proc_interrupts(std::string_view text);

// What names the NIC's IRQs: its driver (ETHTOOL_GDRVINFO), the interface name, the device's
// own name in sysfs (virtio_net names IRQs after it: "virtio2"), its PCI address, and the IRQ
// numbers of the device (msi_irqs; empty when the platform lists none).
struct IrqNaming {
  std::string driver;
  std::string ifname;
  std::string device;
  std::string pci_address;
  std::vector<int> device_irqs;
};

// The NIC's IRQs, each with the queue it serves, ordered rx, tx, combined, other and by queue.
// An IRQ of the device whose name no pattern knows is kept as `other`. Error when the driver
// has no IRQ per queue (hv_netvsc: VMBus channels) or none of the lines is the NIC's.
Expected<std::vector<NicIrq>> map_queue_irqs(const IrqNaming& naming,
                                             const std::vector<InterruptLine>& lines);

// A sysfs CPU mask ("00000000,0000000f" as in rps_cpus, xps_cpus, smp_affinity) -> CPU numbers.
Expected<std::vector<int>> parse_cpu_mask(std::string_view text);

// ETHTOOL_GRXFH bits -> "src-ip dst-ip src-port dst-port" (the RXH_* names ethtool's own
// documentation uses); "none" for 0, "discard" when the flow type is dropped.
std::string describe_hash_fields(std::uint64_t rxh_bits);

}  // namespace xttcp
