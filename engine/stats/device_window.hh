// The counters of a device a backend drives itself (dpdk: a port), read by the engine at the
// phase edges, and what the window's two snapshots give: per-queue counts, counter deltas, frame
// rates at L1/L2/L4 and TSC cycles per frame. Pure arithmetic: unit-tested anywhere.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/result.hh"

namespace xttcp {

struct DeviceQueueCounters {
  uint64_t tx_frames = 0, tx_bytes = 0, rx_frames = 0, rx_bytes = 0;  // bytes without the FCS
};

// Absolute counters at one instant.
struct DeviceSnapshot {
  std::string device, driver;
  uint64_t tsc = 0, tsc_hz = 0;  // the time-stamp counter now, and its rate
  uint32_t pollers = 0;          // threads spinning on the device (each burns every cycle)
  std::vector<DeviceQueueCounters> queues;                 // the backend's own counts, per queue
  std::vector<std::pair<std::string, uint64_t>> counters;  // the device's own, by name
  std::optional<DeviceDescription> description;            // as the device said at setup
};

// The rte_eth_stats-style counters every device result shows, moved or not.
inline constexpr const char* always_shown_counters[] = {
    "ipackets", "opackets", "ibytes", "obytes", "imissed", "ierrors", "oerrors", "rx_nombuf"};

// The window between two snapshots of the same device. `sender` picks the direction the rates
// count (tx, else rx); `payload_bytes` (the run's measured bytes) gives L4. A counter that went
// backwards (a device reset) counts 0.
DeviceResult device_window(const DeviceSnapshot& begin, const DeviceSnapshot& end, double seconds,
                           bool sender, uint64_t payload_bytes);

// One console note: "dpdk: net_null0 (net_null) tx over the window: 12.50 Mpps, L1 8.40 / L2
// 6.40 / L4 ... Gbit/s, 168.0 TSC cycles/frame; queues ...; imissed 0 ...; moved: ...".
std::string device_note(const DeviceResult& device, const std::string& backend);

}  // namespace xttcp
