// The RSS description's JSON form: the "rss" object of a receiver's native hello, and the file
// XTTCP_RSS_FILE names (docs/topology.md). Read as hostile input: bounded and fully checked.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/status.hh"
#include "topology/nic/rss_description.hh"

namespace xttcp {

// {"nic", "hash_function", "key" (hex), "queues", "indirection", "hash_fields", "port_queues"};
// without a description: {"not_available": why}.
nlohmann::ordered_json rss_to_json(const Expected<RssDescription>& rss);

// An RSS key as lowercase hex ("6d5a56da..."), and back: an even number of hex digits, at most
// rss_limits::max_key_bytes bytes ("rss.key: ..." names what is wrong).
std::string rss_key_hex(const std::vector<std::uint8_t>& key);
Expected<std::vector<std::uint8_t>> rss_key_from_hex(const std::string& text);

// A description from its JSON object: every member typed and within rss_limits, or one line
// naming the member and the rule ("rss.key: 60 bytes; 1 to 52").
Expected<RssDescription> rss_from_json(const nlohmann::ordered_json& object);

// What a receiver's hello says about its RSS.
struct PeerRss {
  std::optional<RssDescription> rss;
  std::string why_none;  // without rss: the receiver's reason, or that it sent none
};

// Error when the hello is not a bounded JSON object or its "rss" breaks a rule (the sender
// refuses such a receiver); a hello without "rss" is an older xttcp's.
Expected<PeerRss> read_peer_rss(const std::string& receiver_hello);

// XTTCP_RSS_FILE: the description in `path` (the JSON object above, at most 256 KiB).
Expected<RssDescription> read_rss_file(const std::string& path);

}  // namespace xttcp
