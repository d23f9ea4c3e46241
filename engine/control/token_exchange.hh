// NTttcp for Windows' token handshake on the sender, over sockets (docs/architecture.md): for
// every data port, one TCP connection on data port + 1000 over which each side sends one 'X' and
// reads one byte; then it is closed. All ports at once from one thread (a poll loop). The
// receiver's side is token_server.hh.
#pragma once

#include <atomic>
#include <chrono>
#include <optional>
#include <vector>

#include "base/status.hh"
#include "engine/control/windows_token.hh"
#include "engine/net/address.hh"
#include "engine/net/unique_socket.hh"

namespace xttcp {

// Sender, once its data connections are up: connects to every token endpoint (each thread's
// receiver, port set: its data port + 1000), retrying every 100 ms while refused (the original
// listens only once all of its own data connections are in) or closed before its token (an
// xttcp receiver closes a connection it does not take as the thread's sender's), and exchanges
// the tokens. `source` (-nic) binds the local end. Bounded by `timeout`; `cancel` (Ctrl+C) ends it
// early. Error: "token sync: no token from 10.0.0.1 on port 6001 within 10 s (is the receiver
// NTttcp without -ns?)". UDP: `flows` (one per endpoint, or none) are declared to the receiver
// after the tokens (windows_token.hh).
Status exchange_tokens_as_sender(const std::vector<SocketAddress>& endpoints,
                                 const std::optional<SocketAddress>& source,
                                 std::chrono::milliseconds timeout, const std::atomic<bool>& cancel,
                                 const std::vector<windows_token::FlowDeclaration>& flows = {});

}  // namespace xttcp
