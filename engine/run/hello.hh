// The native hello frame both xttcp peers send: who they are and their full effective spec; a
// UDP sender adds the flows it will send ("udp_flows": base, count and token,
// udp/flow_admission.hh), so the receiver can tell them from datagrams nobody of the test sent; a
// receiver adds its NIC's RSS ("rss"), by which the sender chooses its source ports (engine/rss/).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/status.hh"
#include "engine/spec.hh"
#include "engine/udp/flow_admission.hh"

namespace xttcp {

// A receiver adds "rss": its NIC's RSS description or why it has none (engine/rss/rss_json.hh).
std::string hello_json(const TestSpec& spec,
                       std::optional<udp::DeclaredFlows> udp_flows = std::nullopt,
                       std::optional<nlohmann::ordered_json> rss = std::nullopt);

// The flows a sender's hello declares; nullopt when it declares none (TCP). An error when the
// frame is not a readable hello (bounded like every peer's JSON) or its declaration breaks a
// rule: that sender is refused, and nobody else's flows are touched.
Expected<std::optional<udp::DeclaredFlows>> declared_udp_flows(const std::string& sender_hello);

}  // namespace xttcp
