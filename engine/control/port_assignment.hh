// NTttcp for Windows' -sp (docs/architecture.md): the receiver accepts one connection per sender
// thread on the base port and sends each its data port (4-byte little-endian long: base + 1,
// base + 2, ...), closing it; the sender threads then connect to those ports. Over IPv4, as the
// original.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "base/status.hh"
#include "engine/control/control_port_door.hh"
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

// Receiver: hands out first_port, first_port + 1, ... to the next `threads` connections on
// `listener`. Returns when all are handed out, or with an error when `stop` is set. Its door
// (control_port_door.hh): `hooks.admit` (--allow, --max-clients) is asked about each connection
// first, one it refuses is closed at once, gets no port and is logged; out of descriptors, the
// listener rests and tries again.
Status serve_assigned_ports(UniqueSocket listener, uint16_t first_port, uint32_t threads,
                            const std::atomic<bool>& stop, ControlPortHooks hooks = {});

}  // namespace xttcp
