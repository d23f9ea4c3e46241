// The sender's step between agreeing with the receiver and connecting its flows: when nothing
// fixes the source ports, choose them from the receiver's RSS description so the flows land
// evenly on its RX queues (source_ports.hh), write them into the plan, and say what was done
// and why in the result (Result::source_ports).
#pragma once

#include <optional>

#include "engine/net/address.hh"
#include "engine/plan.hh"
#include "engine/result.hh"
#include "engine/rss/rss_json.hh"
#include "engine/spec.hh"

namespace xttcp {

struct SpreadInputs {
  const TestSpec& spec;
  bool native_peer = false;                // the receiver answered xttcp's hello
  const std::optional<PeerRss>& peer_rss;  // what its hello said about RSS
  std::optional<SocketAddress> local;      // the control connection's local address
  const SocketAddress& receiver;           // the receiver's address (flows to hosts[0])
  const SocketAddress& bind_address;       // what the workers bind: -a, or any address
};

SourcePortSpread spread_source_ports(const SpreadInputs& inputs, Plan& plan);

}  // namespace xttcp
