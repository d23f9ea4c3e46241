// The native hello frame both xttcp peers send: who they are and their full effective spec; a
// UDP sender adds the flows it will send ("udp_flows": base, count and token,
// udp/flow_admission.hh), so the receiver can tell them from datagrams nobody of the test sent; a
// receiver adds its NIC's RSS ("rss"), by which the sender chooses its source ports (engine/rss/).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "base/status.hh"
#include "engine/control/sync_auth.hh"
#include "engine/spec.hh"
#include "engine/udp/flow_admission.hh"

namespace xttcp {

// A receiver adds "rss": its NIC's RSS description or why it has none (engine/rss/rss_json.hh),
// and on one port without --auth-key "stream_cookie": the cookie its sender's data connections
// open with (sync_auth.hh's preamble; with the key both ends have it from the proof).
std::string hello_json(const TestSpec& spec,
                       std::optional<udp::DeclaredFlows> udp_flows = std::nullopt,
                       std::optional<nlohmann::ordered_json> rss = std::nullopt,
                       std::optional<sync_auth::Cookie> stream_cookie = std::nullopt);

// The cookie a receiver's hello hands out for the data connections (one port); nullopt when it
// hands none. An error when "stream_cookie" is there but is not 32 hex digits.
Expected<std::optional<sync_auth::Cookie>> stream_cookie_in_hello(
    const std::string& receiver_hello);

// Whether a sender running `spec` declares its UDP flows (in its hello, or the Windows dialect's
// token connections): only when each of its datagrams carries the token the declaration names,
// in xttcp's header (a stream's; not NTttcp's payload, nor datagrams too short for the header)
// or in an --rr request long enough for its flow id and token (rr_limits::udp_proof_bytes). A
// receiver that took the declaration would count no datagram without it.
bool declares_udp_flows(const TestSpec& spec);

// The flows a sender's hello declares; nullopt when it declares none (TCP), or when its spec
// says its datagrams carry no token (an xttcp older than declares_udp_flows() declared all the
// same). An error when the frame is not a readable hello (bounded like every peer's JSON) or
// its declaration breaks a rule: that sender is refused, and nobody else's flows are touched.
Expected<std::optional<udp::DeclaredFlows>> declared_udp_flows(const std::string& sender_hello);

}  // namespace xttcp
