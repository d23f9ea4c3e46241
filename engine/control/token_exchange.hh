// NTttcp for Windows' token handshake over sockets (docs/architecture.md): for every data port, one
// TCP connection on data port + 1000 over which each side sends one 'X' and reads one byte;
// then it is closed. All ports are served at once from one thread (a poll loop), so the
// original's threads, each waiting for its own token, are all answered.
#pragma once

#include <atomic>
#include <chrono>
#include <optional>
#include <vector>

#include "base/status.hh"
#include "engine/control/control_port_door.hh"
#include "engine/control/windows_token.hh"
#include "engine/net/address.hh"
#include "engine/net/unique_socket.hh"

namespace xttcp {

// Sender, once its data connections are up: connects to every token endpoint (each thread's
// receiver, port set: its data port + 1000), retrying every 100 ms while refused (the original
// listens only once all of its own data connections are in), and exchanges the tokens. `source`
// (-nic) binds the local end. Bounded by `timeout`; `cancel` (Ctrl+C) ends it early. Error:
// "token sync: no token from 10.0.0.1 on port 6001 within 10 s (is the receiver NTttcp without
// -ns?)". UDP: `flows` (one per endpoint, or none) are declared to the receiver after the
// tokens (windows_token.hh).
Status exchange_tokens_as_sender(const std::vector<SocketAddress>& endpoints,
                                 const std::optional<SocketAddress>& source,
                                 std::chrono::milliseconds timeout, const std::atomic<bool>& cancel,
                                 const std::vector<windows_token::FlowDeclaration>& flows = {});

// Receiver: listens on every token endpoint (each thread's bind address, port set) now, so a
// port in use is reported before anything starts ("token port 6001: address already in use").
Expected<std::vector<UniqueSocket>> listen_token_ports(const std::vector<SocketAddress>& endpoints);

// Receiver: accepts exactly one connection per listener (then closes the listener, as the
// original does), exchanges the tokens, and returns when every port has. Returns early with an
// error when `stop` is set ("token sync: stopped") or a sender misbehaves. Its door
// (control_port_door.hh): `hooks.admit` (--allow, --max-clients) is asked about each connection
// first, one it refuses is closed at once and logged and the port goes on listening for its
// sender; out of descriptors, the listeners rest and try again. UDP: with `flows`, each port's
// sender may declare its flow after the tokens (windows_token.hh); the receiver waits for it up
// to 2 s after that sender's token (or until the sender closes), then appends one entry per
// port in listener order (nullopt: none came).
Status serve_tokens(std::vector<UniqueSocket> listeners, const std::atomic<bool>& stop,
                    ControlPortHooks hooks = {},
                    std::vector<std::optional<windows_token::FlowDeclaration>>* flows = nullptr);

}  // namespace xttcp
