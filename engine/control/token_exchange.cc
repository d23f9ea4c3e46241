#include "engine/control/token_exchange.hh"

#include <array>
#include <cstddef>
#include <thread>

#include <fmt/format.h>

#include "engine/control/windows_token.hh"
#include "engine/net/socket_io.hh"
#include "engine/net/socket_setup.hh"

namespace xttcp {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kPollMs = 50;

// A receiver waits this long after a sender's token for its flow declaration (an NTttcp
// sender closes at once: none comes).
constexpr auto kDeclarationWait = std::chrono::seconds(2);

// One port's exchange. Sender: connecting -> exchanging -> done (back to waiting after a
// refused connect). Receiver: listening -> exchanging -> (declaring, UDP) -> done.
struct TokenSlot {
  enum class State { waiting, connecting, listening, exchanging, declaring, done };
  uint16_t port = 0;
  SocketAddress remote;  // sender: where the token goes (port set)
  State state = State::waiting;
  UniqueSocket listener;  // receiver
  UniqueSocket connection;
  Clock::time_point retry_at{};
  std::string last_error;  // sender: why the last connect failed
  // UDP: the sender's flow, sent after the tokens (windows_token.hh); the receiver's bytes of it
  // so far, until when it waits, and what it read.
  std::optional<windows_token::FlowDeclaration> flow;
  std::array<char, windows_token::flow_declaration_size> declaration{};
  std::size_t declaration_bytes = 0;
  Clock::time_point declare_by{};
};

// Sends our token on a fresh connection: one byte into an empty send buffer always fits.
Status send_token(TokenSlot& slot) {
  const char byte = windows_token::token;
  for (;;) {
    const SocketTransfer sent = send_some(slot.connection.get(), &byte, 1);
    if (sent.bytes == 1) return ok();
    if (sent.bytes < 0 && classify_socket_error(sent.error) == SocketError::interrupted) continue;
    return fail(fmt::format("token sync: cannot send the token on port {}: {}", slot.port,
                            socket_error_text(sent.error)));
  }
}

// Reads the peer's token. true = received; false = nothing yet. Error: the peer closed.
Expected<bool> receive_token(TokenSlot& slot, const char* peer) {
  char byte;
  const SocketTransfer got = receive_some(slot.connection.get(), &byte, 1);
  if (got.bytes == 1) return true;
  if (got.bytes == 0)
    return fail(
        fmt::format("token sync: the {} closed the token connection on port {} before "
                    "sending its token",
                    peer, slot.port));
  const SocketError kind = classify_socket_error(got.error);
  if (kind == SocketError::would_block || kind == SocketError::interrupted) return false;
  return fail(fmt::format("token sync: cannot read the token on port {}: {}", slot.port,
                          socket_error_text(got.error)));
}

// Sender, once the receiver's token came: the flow declaration, into an empty send buffer. One
// that does not go out whole is no declaration to the receiver: its flows then all count.
void send_declaration(TokenSlot& slot) {
  if (!slot.flow) return;
  const auto bytes = windows_token::encode_flow_declaration(*slot.flow);
  (void)send_some(slot.connection.get(), bytes.data(), bytes.size());
}

// Receiver: reads what there is of the declaration. true = over (whole, or none comes: the
// sender closed, failed or waited too long).
bool read_declaration(TokenSlot& slot, Clock::time_point now) {
  char* into = slot.declaration.data() + slot.declaration_bytes;
  const SocketTransfer got =
      receive_some(slot.connection.get(), into, slot.declaration.size() - slot.declaration_bytes);
  if (got.bytes > 0) {
    slot.declaration_bytes += static_cast<std::size_t>(got.bytes);
    if (slot.declaration_bytes < slot.declaration.size()) return now >= slot.declare_by;
    slot.flow = windows_token::decode_flow_declaration(slot.declaration);
    return true;
  }
  if (got.bytes == 0) return true;
  const SocketError kind = classify_socket_error(got.error);
  return (kind != SocketError::would_block && kind != SocketError::interrupted) ||
         now >= slot.declare_by;
}

Status start_connect(TokenSlot& slot, const std::optional<SocketAddress>& source) {
  ConnectOptions options;
  if (source) {
    options.source = *source;
    options.source->set_port(0);
  }
  auto connection = start_connect_tcp(slot.remote, options);
  if (!connection) return fail("token sync: " + connection.error().message);
  slot.connection = std::move(*connection);
  slot.state = TokenSlot::State::connecting;
  return ok();
}

}  // namespace

Status exchange_tokens_as_sender(const std::vector<SocketAddress>& endpoints,
                                 const std::optional<SocketAddress>& source,
                                 std::chrono::milliseconds timeout, const std::atomic<bool>& cancel,
                                 const std::vector<windows_token::FlowDeclaration>& flows) {
  std::vector<TokenSlot> slots(endpoints.size());
  for (size_t i = 0; i < slots.size(); ++i) {
    slots[i].remote = endpoints[i];
    slots[i].port = endpoints[i].port();
    if (i < flows.size()) slots[i].flow = flows[i];
  }
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (cancel.load()) return fail("token sync: interrupted");
    size_t done = 0;
    const auto now = Clock::now();
    std::vector<SocketPoll> entries;
    std::vector<TokenSlot*> polled;
    for (TokenSlot& slot : slots) {
      if (slot.state == TokenSlot::State::done) {
        ++done;
        continue;
      }
      if (slot.state == TokenSlot::State::waiting && slot.retry_at <= now)
        if (Status started = start_connect(slot, source); !started) return started;
      if (slot.state == TokenSlot::State::connecting) {
        // WSAPoll does not report a refused connect on every Windows: ask the socket too.
        const int error = pending_socket_error(slot.connection.get());
        if (error != 0) {
          slot.last_error = socket_error_text(error);
          slot.connection.reset();
          slot.state = TokenSlot::State::waiting;
          slot.retry_at = now + windows_token::connect_retry_pause;
          continue;
        }
        SocketPoll entry{slot.connection.get()};
        entry.want_read = false;
        entry.want_write = true;
        entries.push_back(entry);
        polled.push_back(&slot);
      } else if (slot.state == TokenSlot::State::exchanging) {
        entries.push_back(SocketPoll{slot.connection.get()});
        polled.push_back(&slot);
      }
    }
    if (done == slots.size()) return ok();
    if (now >= deadline) {
      for (const TokenSlot& slot : slots) {
        if (slot.state == TokenSlot::State::done) continue;
        const std::string why = slot.last_error.empty() ? "" : " (last: " + slot.last_error + ")";
        return fail(fmt::format(
            "token sync: no token from {} on port {} within {:.0f} s{} (is "
            "the receiver NTttcp for Windows without -ns?)",
            slot.remote.host(), slot.port, std::chrono::duration<double>(timeout).count(), why));
      }
    }
    if (entries.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));  // all waiting to retry
      continue;
    }
    if (poll_sockets(entries, kPollMs) < 0) continue;  // interrupted: look again
    for (size_t i = 0; i < entries.size(); ++i) {
      TokenSlot& slot = *polled[i];
      const SocketPoll& entry = entries[i];
      if (slot.state == TokenSlot::State::connecting && (entry.writable || entry.hung_up)) {
        const int error = pending_socket_error(slot.connection.get());
        if (error != 0) {  // refused: the receiver is not listening yet
          slot.last_error = socket_error_text(error);
          slot.connection.reset();
          slot.state = TokenSlot::State::waiting;
          slot.retry_at = Clock::now() + windows_token::connect_retry_pause;
          continue;
        }
        if (Status sent = send_token(slot); !sent) return sent;
        slot.state = TokenSlot::State::exchanging;
      } else if (slot.state == TokenSlot::State::exchanging && (entry.readable || entry.hung_up)) {
        auto got = receive_token(slot, "receiver");
        if (!got) return got.error();
        if (*got) {
          send_declaration(slot);
          slot.connection.reset();
          slot.state = TokenSlot::State::done;
        }
      }
    }
  }
}

Expected<std::vector<UniqueSocket>> listen_token_ports(
    const std::vector<SocketAddress>& endpoints) {
  std::vector<UniqueSocket> listeners;
  for (const SocketAddress& address : endpoints) {
    // Backlog 1: each port takes exactly one connection (the original listens with 0).
    auto listener = listen_tcp(address, 1);
    if (!listener) return fail("token " + listener.error().message);
    listeners.push_back(std::move(*listener));
  }
  return listeners;
}

Status serve_tokens(std::vector<UniqueSocket> listeners, const std::atomic<bool>& stop,
                    ControlPortHooks hooks,
                    std::vector<std::optional<windows_token::FlowDeclaration>>* flows) {
  ControlPortDoor door("token sync", std::move(hooks));
  std::vector<TokenSlot> slots(listeners.size());
  for (size_t i = 0; i < slots.size(); ++i) {
    auto bound = local_address_of(listeners[i].get());
    slots[i].port = bound ? bound->port() : 0;
    slots[i].listener = std::move(listeners[i]);
    slots[i].state = TokenSlot::State::listening;
  }
  for (;;) {
    if (stop.load()) return fail("token sync: stopped");
    const auto now = Clock::now();
    // Out of descriptors a moment ago: the listeners rest (no spin), the exchanges go on.
    const bool listening = door.listening(now);
    std::vector<SocketPoll> entries;
    std::vector<TokenSlot*> polled;
    size_t left = 0;
    for (TokenSlot& slot : slots) {
      if (slot.state == TokenSlot::State::listening) {
        ++left;
        if (!listening) continue;
        entries.push_back(SocketPoll{slot.listener.get()});
        polled.push_back(&slot);
      } else if (slot.state == TokenSlot::State::declaring && now >= slot.declare_by) {
        slot.connection.reset();  // no declaration: this thread's sender declared nothing
        slot.state = TokenSlot::State::done;
      } else if (slot.state == TokenSlot::State::exchanging ||
                 slot.state == TokenSlot::State::declaring) {
        ++left;
        entries.push_back(SocketPoll{slot.connection.get()});
        polled.push_back(&slot);
      }
    }
    if (left == 0) {  // every port has exchanged its token
      if (flows != nullptr)
        for (TokenSlot& slot : slots) flows->push_back(slot.flow);
      return ok();
    }
    const int wait_ms = door.wait_ms(Clock::now(), kPollMs);
    if (entries.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
      continue;
    }
    if (poll_sockets(entries, wait_ms) < 0) continue;
    for (size_t i = 0; i < entries.size(); ++i) {
      TokenSlot& slot = *polled[i];
      const SocketPoll& entry = entries[i];
      if (!entry.readable && !entry.hung_up) continue;
      if (slot.state == TokenSlot::State::listening) {
        // None pending, refused (closed, the port still listens) or out of descriptors.
        std::optional<UniqueSocket> accepted = door.accept(slot.listener.get(), slot.port);
        if (!accepted) continue;
        slot.connection = std::move(*accepted);
        slot.listener.reset();  // one connection per port, as the original
        if (Status sent = send_token(slot); !sent) return sent;
        slot.state = TokenSlot::State::exchanging;
      } else if (slot.state == TokenSlot::State::declaring) {
        if (read_declaration(slot, Clock::now())) {
          slot.connection.reset();
          slot.state = TokenSlot::State::done;
        }
      } else {
        auto got = receive_token(slot, "sender");
        if (!got) return got.error();
        if (*got && flows != nullptr) {  // UDP: its flow declaration may follow
          slot.state = TokenSlot::State::declaring;
          slot.declare_by = Clock::now() + kDeclarationWait;
        } else if (*got) {
          slot.connection.reset();
          slot.state = TokenSlot::State::done;
        }
      }
    }
  }
}

}  // namespace xttcp
