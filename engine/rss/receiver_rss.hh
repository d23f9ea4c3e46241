// The receiver's side: the RSS description its native hello carries, for the NIC the sender
// reached it by (the backend's own device when it drives one, e.g. a DPDK port; else --nic, else
// the interface holding the address the sync connection came to).
// XTTCP_RSS_FILE=FILE describes the RSS from a file instead, for NICs that report none (a veth
// in tests, a virtio NIC without ETHTOOL_GRSSH): docs/topology.md.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/net/address.hh"
#include "engine/plan.hh"
#include "engine/result.hh"
#include "engine/spec.hh"
#include "topology/nic/rss_description.hh"

namespace xttcp {

// The description of a backend's own device (dpdk: a port) from what it said at setup, or why
// it has none ("net_tap0: indirection table unavailable: ..."): every part it lacks is named.
Expected<RssDescription> rss_description_of(const DeviceDescription& device);

class ReceiverRss {
 public:
  // `device`: what the backend's own device says of itself, when it drives one (its RSS is then
  // the one the data meets, before --nic's or the sync connection's interface); may be empty.
  ReceiverRss(const TestSpec& spec, const Plan& plan,
              std::function<std::optional<DeviceDescription>()> device = {})
      : spec_(spec), plan_(plan), device_(std::move(device)) {}

  // Reads XTTCP_RSS_FILE when set: an unreadable or invalid file fails the receiver's start
  // ("XTTCP_RSS_FILE: rss.json: rss.key: 60 bytes; 1 to 52").
  Status load();

  // The hello's "rss" object for a sync connection that came to `reached_at` (remembered per
  // address: NIC discovery runs once per interface).
  nlohmann::ordered_json hello_part(const SocketAddress& reached_at);

 private:
  Expected<RssDescription> describe(const SocketAddress& reached_at) const;

  const TestSpec& spec_;
  const Plan& plan_;
  std::function<std::optional<DeviceDescription>()> device_;
  std::optional<RssDescription> file_;
  std::map<std::string, nlohmann::ordered_json> by_address_;
};

}  // namespace xttcp
