// NTttcp for Windows' token handshake on the receiver, over sockets (docs/architecture.md): every
// thread's token port (its data port + 1000) served at once from one thread (a poll loop), so
// the original's threads, each waiting for its own token, are all answered. Who counts as a
// thread's sender, and every deadline, is token_port_rules.hh (docs/hostile-peers.md).
#pragma once

#include <atomic>
#include <optional>
#include <vector>

#include "base/status.hh"
#include "engine/control/control_port_door.hh"
#include "engine/control/sender_evidence.hh"
#include "engine/control/windows_token.hh"
#include "engine/net/address.hh"
#include "engine/net/unique_socket.hh"

namespace xttcp {

// Listens on every token endpoint (each thread's bind address, port set) now, so a port in use
// is reported before anything starts ("token port 6001: address already in use").
Expected<std::vector<UniqueSocket>> listen_token_ports(const std::vector<SocketAddress>& endpoints);

// What tells a thread's sender (token_standing).
struct TokenServing {
  bool tcp = true;                     // its data connection on the thread's port came first
  bool port_assignment = false;        // -sp: the thread's port was handed out to its host
  SenderEvidence* evidence = nullptr;  // what the receiver has seen; records the counted tokens
};

// Serves every listener (thread order) until each thread's token counted, then returns (its
// listeners close). A connection whose token counts gets the receiver's 'X' and is closed; any
// other is closed without one, and its port listens on. A connection that fails, resets or
// closes ends itself only. Returns early with "token sync: stopped" when `stop` is set. Its door
// (control_port_door.hh): `hooks.admit` (--allow, --max-clients) is asked about each connection
// first; out of descriptors, the listeners rest and try again; every line a peer triggers is
// within the door's budget. UDP: with `flows`, each thread's sender may declare its flow after
// the tokens (windows_token.hh); the receiver waits for it up to 2 s after that thread's token
// counted (or until the sender closes), then appends one entry per thread (nullopt: none came).
Status serve_tokens(std::vector<UniqueSocket> listeners, const std::atomic<bool>& stop,
                    ControlPortHooks hooks, TokenServing serving,
                    std::vector<std::optional<windows_token::FlowDeclaration>>* flows = nullptr);

}  // namespace xttcp
