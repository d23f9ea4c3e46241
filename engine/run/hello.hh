// The native hello frame both xttcp peers send: who they are and their full effective spec; a
// UDP sender adds the flows it will send ("udp_flows": base, count and token,
// udp/flow_admission.hh),
// so the receiver can tell them from datagrams nobody of the test sent.
#pragma once

#include <optional>
#include <string>

#include "engine/spec.hh"
#include "engine/udp/flow_admission.hh"

namespace xttcp {

std::string hello_json(const TestSpec& spec,
                       std::optional<udp::DeclaredFlows> udp_flows = std::nullopt);

// The flows a sender's hello declares; nullopt when it declares none (TCP, an older xttcp) or
// the frame is not a readable hello (bounded like every peer's JSON).
std::optional<udp::DeclaredFlows> declared_udp_flows(const std::string& sender_hello);

}  // namespace xttcp
