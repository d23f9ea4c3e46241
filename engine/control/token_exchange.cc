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
constexpr int kTokenExchangePollMs = 50;

// One port's exchange: connecting -> exchanging -> done; back to waiting after a refused
// connect, or a connection the receiver closed or reset before its token.
struct TokenSlot {
  enum class State { waiting, connecting, exchanging, done };
  uint16_t port = 0;
  SocketAddress remote;  // where the token goes (port set)
  State state = State::waiting;
  UniqueSocket connection;
  Clock::time_point retry_at{};
  std::string last_error;  // why the last try failed
  // UDP: the flow declared after the tokens (windows_token.hh).
  std::optional<windows_token::FlowDeclaration> flow;
};

// Sends our token on a fresh connection: one byte into an empty send buffer always fits. Error:
// why not (the receiver reset it).
Status send_token(TokenSlot& slot) {
  const char byte = windows_token::token;
  for (;;) {
    const SocketTransfer sent = send_some(slot.connection.get(), &byte, 1);
    if (sent.bytes == 1) return ok();
    if (sent.bytes < 0 && classify_socket_error(sent.error) == SocketError::interrupted) continue;
    return fail("cannot send the token: " + socket_error_text(sent.error));
  }
}

// Reads the receiver's token. true = received; false = nothing yet. Error: why none comes (it
// closed or reset the connection).
Expected<bool> receive_token(TokenSlot& slot) {
  char byte;
  const SocketTransfer got = receive_some(slot.connection.get(), &byte, 1);
  if (got.bytes == 1) return true;
  if (got.bytes == 0) return fail("the receiver closed the connection before sending its token");
  const SocketError kind = classify_socket_error(got.error);
  if (kind == SocketError::would_block || kind == SocketError::interrupted) return false;
  return fail("cannot read the token: " + socket_error_text(got.error));
}

// The try failed (`why`): the connection goes, another follows after the retry pause. A
// receiver closes a token connection it does not take for its thread's (docs/hostile-peers.md).
void retry_later(TokenSlot& slot, std::string why) {
  slot.last_error = std::move(why);
  slot.connection.reset();
  slot.state = TokenSlot::State::waiting;
  slot.retry_at = Clock::now() + windows_token::connect_retry_pause;
}

// Sender, once the receiver's token came: the flow declaration, into an empty send buffer. One
// that does not go out whole is no declaration to the receiver: its flows then all count.
void send_declaration(TokenSlot& slot) {
  if (!slot.flow) return;
  const auto bytes = windows_token::encode_flow_declaration(*slot.flow);
  (void)send_some(slot.connection.get(), bytes.data(), bytes.size());
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
          retry_later(slot, socket_error_text(error));
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
      std::this_thread::sleep_for(
          std::chrono::milliseconds(kTokenExchangePollMs));  // all waiting to retry
      continue;
    }
    if (poll_sockets(entries, kTokenExchangePollMs) < 0) continue;  // interrupted: look again
    for (size_t i = 0; i < entries.size(); ++i) {
      TokenSlot& slot = *polled[i];
      const SocketPoll& entry = entries[i];
      if (slot.state == TokenSlot::State::connecting && (entry.writable || entry.hung_up)) {
        const int error = pending_socket_error(slot.connection.get());
        if (error != 0) {  // refused: the receiver is not listening yet
          retry_later(slot, socket_error_text(error));
          continue;
        }
        if (Status sent = send_token(slot); !sent) {
          retry_later(slot, sent.error().message);
          continue;
        }
        slot.state = TokenSlot::State::exchanging;
      } else if (slot.state == TokenSlot::State::exchanging && (entry.readable || entry.hung_up)) {
        auto got = receive_token(slot);
        if (!got) {
          retry_later(slot, got.error().message);
          continue;
        }
        if (*got) {
          send_declaration(slot);
          slot.connection.reset();
          slot.state = TokenSlot::State::done;
        }
      }
    }
  }
}

}  // namespace xttcp
