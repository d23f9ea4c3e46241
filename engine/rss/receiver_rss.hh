// The receiver's side: the RSS description its native hello carries, for the NIC the sender
// reached it by (--nic, else the interface holding the address the sync connection came to).
// XTTCP_RSS_FILE=FILE describes the RSS from a file instead, for NICs that report none (a veth
// in tests, a virtio NIC without ETHTOOL_GRSSH): docs/topology.md.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/net/address.hh"
#include "engine/plan.hh"
#include "engine/spec.hh"
#include "topology/nic/rss_description.hh"

namespace xttcp {

class ReceiverRss {
 public:
  ReceiverRss(const TestSpec& spec, const Plan& plan) : spec_(spec), plan_(plan) {}

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
  std::optional<RssDescription> file_;
  std::map<std::string, nlohmann::ordered_json> by_address_;
};

}  // namespace xttcp
