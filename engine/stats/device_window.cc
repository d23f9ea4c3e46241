#include "engine/stats/device_window.hh"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace xttcp {

namespace {

uint64_t delta(uint64_t before, uint64_t after) { return after >= before ? after - before : 0; }

bool always_shown(const std::string& name) {
  return std::any_of(std::begin(always_shown_counters), std::end(always_shown_counters),
                     [&](const char* shown) { return name == shown; });
}

}  // namespace

DeviceResult device_window(const DeviceSnapshot& begin, const DeviceSnapshot& end, double seconds,
                           bool sender, uint64_t payload_bytes) {
  DeviceResult r;
  r.device = end.device;
  r.driver = end.driver;
  r.description = end.description;
  r.direction = sender ? "tx" : "rx";
  r.tsc_hz = end.tsc_hz;
  r.pollers = end.pollers;
  for (std::size_t q = 0; q < end.queues.size(); ++q) {
    const DeviceQueueCounters before =
        q < begin.queues.size() ? begin.queues[q] : DeviceQueueCounters{};
    const DeviceQueueCounters& after = end.queues[q];
    DeviceQueueResult queue{static_cast<uint32_t>(q), delta(before.tx_frames, after.tx_frames),
                            delta(before.tx_bytes, after.tx_bytes),
                            delta(before.rx_frames, after.rx_frames),
                            delta(before.rx_bytes, after.rx_bytes)};
    r.frames += sender ? queue.tx_frames : queue.rx_frames;
    r.frame_bytes += sender ? queue.tx_bytes : queue.rx_bytes;
    r.queues.push_back(queue);
  }
  for (const auto& [name, value] : end.counters) {
    uint64_t before = value;  // a counter that appeared meanwhile did not move
    for (const auto& [old_name, old_value] : begin.counters)
      if (old_name == name) {
        before = old_value;
        break;
      }
    const uint64_t moved = delta(before, value);
    if (moved > 0 || always_shown(name)) r.counters.emplace_back(name, moved);
  }
  if (seconds > 0) {
    const double frames = static_cast<double>(r.frames);
    const double l2_bytes = static_cast<double>(r.frame_bytes) + 4.0 * frames;
    r.mpps = frames / seconds / 1e6;
    r.l2_gbps = l2_bytes * 8.0 / seconds / 1e9;
    r.l1_gbps = (l2_bytes + 20.0 * frames) * 8.0 / seconds / 1e9;
    r.l4_gbps = static_cast<double>(payload_bytes) * 8.0 / seconds / 1e9;
  }
  if (r.frames > 0 && end.tsc >= begin.tsc)
    r.cycles_per_frame = static_cast<double>(end.tsc - begin.tsc) * std::max(r.pollers, 1u) /
                         static_cast<double>(r.frames);
  return r;
}

std::string device_note(const DeviceResult& d, const std::string& backend) {
  std::string queues;
  for (const DeviceQueueResult& q : d.queues)
    fmt::format_to(std::back_inserter(queues), "{}q{} {}", queues.empty() ? "" : ", ", q.queue,
                   d.direction == "tx" ? q.tx_frames : q.rx_frames);
  std::string counters;
  for (const auto& [name, value] : d.counters)
    fmt::format_to(std::back_inserter(counters), "{}{} {}", counters.empty() ? "" : ", ", name,
                   value);
  return fmt::format(
      "{}: {} ({}) {} over the window: {} frames, {:.3f} Mpps, L1 {:.3f} / L2 {:.3f} / L4 {:.3f} "
      "Gbit/s (L1 adds 20 B preamble and gap, L2 the 4 B FCS), {:.1f} TSC cycles/frame "
      "({} polling thread(s)); frames per queue: {}; counters: {}",
      backend, d.device, d.driver, d.direction, d.frames, d.mpps, d.l1_gbps, d.l2_gbps, d.l4_gbps,
      d.cycles_per_frame, d.pollers, queues.empty() ? "-" : queues, counters);
}

}  // namespace xttcp
