// NTttcp for Windows' -sp (docs/architecture.md): the receiver accepts one connection per sender
// thread on the base port and sends each its data port (4-byte little-endian long: base + 1,
// base + 2, ...), closing it; the sender threads then connect to those ports. Over IPv4, as the
// original. Which port a connection gets is port_handout.hh (docs/hostile-peers.md).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "base/status.hh"
#include "engine/control/control_port_door.hh"
#include "engine/control/sender_evidence.hh"
#include "engine/net/address.hh"
#include "engine/net/unique_socket.hh"

namespace xttcp {

// Sender: `threads` connections to `receiver` (its base port), retrying every 100 ms while
// refused, each reading one assigned port. Bounded by `timeout`; `cancel` ends it early.
// Error: "-sp: no data port from 10.0.0.1:5001 within 10 s (last: connection refused)".
Expected<std::vector<uint32_t>> fetch_assigned_ports(const SocketAddress& receiver,
                                                     uint32_t threads,
                                                     const std::optional<SocketAddress>& source,
                                                     std::chrono::milliseconds timeout,
                                                     const std::atomic<bool>& cancel);

// Receiver: hands out the data ports first_port .. first_port + threads - 1 to the connections
// on `listener` (PortHandout: each once, then one unclaimed for handout_claim_wait again), until
// `over` is set (the test started, or the receiver stops). A connection that gets no port at
// once waits for one to free (a port is in use once `evidence` saw its data connection or token
// from a host it went to) up to handout_claim_wait; with every port in use it is closed at once.
// Each hand-out is recorded in `evidence`. A connection that fails or resets ends itself only.
// Its door (control_port_door.hh): `hooks.admit` (--allow, --max-clients) is asked about each
// connection first, one it refuses is closed at once, gets no port and is logged; out of
// descriptors, the listener rests and tries again; every line a peer triggers is within the
// door's budget.
void serve_assigned_ports(UniqueSocket listener, uint16_t first_port, uint32_t threads,
                          const std::atomic<bool>& over, ControlPortHooks hooks,
                          SenderEvidence& evidence);

}  // namespace xttcp
