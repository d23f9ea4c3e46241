#include "engine/rss/receiver_rss.hh"

#include <cstdlib>

#include <fmt/format.h>

#include "engine/rss/rss_json.hh"
#include "topology/nic/nic_discovery.hh"

namespace xttcp {

Status ReceiverRss::load() {
  const char* path = std::getenv("XTTCP_RSS_FILE");
  if (path == nullptr || *path == '\0') return ok();
  auto rss = read_rss_file(path);
  if (!rss) return fail("XTTCP_RSS_FILE: " + rss.error().message);
  file_ = std::move(*rss);
  return ok();
}

Expected<RssDescription> rss_description_of(const DeviceDescription& device) {
  const RssDescription& rss = device.rss;
  std::string missing;
  const auto lacks = [&missing](const char* part, const std::string& why) {
    missing += fmt::format("{}{} {}", missing.empty() ? "" : "; ", part, why);
  };
  if (rss.key.empty()) lacks("key", device.key_unavailable);
  if (rss.indirection.empty()) lacks("indirection table", device.indirection_unavailable);
  if (!missing.empty()) return fail(fmt::format("{}: {}", rss.nic, missing));
  if (Status checked = check_rss_description(rss); !checked)
    return fail(fmt::format("{}: its RSS is outside what xttcp handles: {}", rss.nic,
                            checked.error().message));
  return rss;
}

Expected<RssDescription> ReceiverRss::describe(const SocketAddress& reached_at) const {
  RssDescription rss;
  std::optional<DeviceDescription> device = device_ ? device_() : std::nullopt;
  if (file_) {
    rss = *file_;
  } else if (device) {
    auto described = rss_description_of(*device);
    if (!described) return described.error();
    rss = std::move(*described);
  } else {
    Expected<std::string> nic =
        spec_.placement.nic.empty() ? interface_toward(reached_at.host()) : spec_.placement.nic;
    if (!nic) return nic.error();
    auto info = discover_nic(*nic);
    if (!info) return info.error();
    auto described = rss_description_of(*info);
    if (!described) return described.error();
    rss = std::move(*described);
  }
  // --placement irq / irq-sibling put worker i on the CPU that takes RX queue i's interrupt:
  // the flows to that worker's ports belong on that queue.
  const PlacementMode used = plan_.placement.used;
  if (used == PlacementMode::irq || used == PlacementMode::irq_sibling)
    for (const WorkerPlan& worker : plan_.workers)
      if (worker.index < rss.queues)
        for (const FlowPlan& flow : worker.flows)
          if (rss.port_queues.size() < rss_limits::max_port_queues)
            rss.port_queues.emplace_back(flow.port, worker.index);
  return rss;
}

nlohmann::ordered_json ReceiverRss::hello_part(const SocketAddress& reached_at) {
  const std::string key = reached_at.host();
  auto found = by_address_.find(key);
  if (found == by_address_.end())
    found = by_address_.emplace(key, rss_to_json(describe(reached_at))).first;
  return found->second;
}

}  // namespace xttcp
