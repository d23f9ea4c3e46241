#include "engine/control/token_server.hh"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "engine/control/token_port_rules.hh"
#include "engine/net/socket_io.hh"
#include "engine/net/socket_setup.hh"

namespace xttcp {

namespace {

using Clock = std::chrono::steady_clock;
using Why = TokenPortRules::Why;
constexpr int kTokenServerPollMs = 50;

// A counted thread's sender may declare its flow after the tokens (UDP); an NTttcp sender
// closes at once: none comes.
constexpr auto kDeclarationWait = std::chrono::seconds(2);

struct TokenPort {
  uint16_t port = 0;       // the token port
  uint16_t data_port = 0;  // its thread's
  UniqueSocket listener;
};

// A connection waiting to be judged (TokenPortRules has its standing).
struct Candidate {
  TokenPortRules::Id id = 0;
  std::size_t port = 0;
  SocketAddress peer;
  UniqueSocket socket;
  bool token = false;  // its byte came: no longer read
};

// UDP: a counted thread's connection, until its flow declaration is read (or none comes).
struct Declaring {
  std::size_t port = 0;
  UniqueSocket socket;
  std::array<char, windows_token::flow_declaration_size> bytes{};
  std::size_t got = 0;
  Clock::time_point by{};
};

// What a closed candidate is told in the log (the line starts "token sync: closed a connection
// from PEER on port P: ").
std::string why_closed(Why why, const TokenPort& port, const std::string& host, bool tcp) {
  const auto wait_s = windows_token::token_wait.count();
  switch (why) {
    case Why::silent: return fmt::format("no token within {} s", wait_s);
    case Why::unproven:
      return tcp ? fmt::format(
                       "no data connection from {} on port {} within {} s (a thread's token "
                       "counts only from the host of its data connection)",
                       host, port.data_port, wait_s)
                 : fmt::format("port {} was not handed out to {} within {} s (-sp)", port.data_port,
                               host, wait_s);
    case Why::early:
      return fmt::format(
          "it came before {}'s data connection on port {} (a sender connects its data port "
          "first)",
          host, port.data_port);
    case Why::not_handed_out:
      return fmt::format("-sp handed port {} to other hosts", port.data_port);
    case Why::crowded:
      return fmt::format("more than {} connections at once on that port (the oldest goes)",
                         windows_token::candidates_per_port);
    case Why::taken: return "that thread's token came on another connection";
  }
  return {};
}

// Sends our token on a fresh connection: one byte into an empty send buffer always fits.
Status send_token(NativeSocket socket) {
  const char byte = windows_token::token;
  for (;;) {
    const SocketTransfer sent = send_some(socket, &byte, 1);
    if (sent.bytes == 1) return ok();
    if (sent.bytes < 0 && classify_socket_error(sent.error) == SocketError::interrupted) continue;
    return fail(socket_error_text(sent.error));
  }
}

// Reads a candidate's byte. true = it came; false = nothing yet. Error: why it is gone.
Expected<bool> read_token(NativeSocket socket) {
  char byte;
  const SocketTransfer got = receive_some(socket, &byte, 1);
  if (got.bytes == 1) return true;
  if (got.bytes == 0) return fail("it closed the connection before sending its token");
  const SocketError kind = classify_socket_error(got.error);
  if (kind == SocketError::would_block || kind == SocketError::interrupted) return false;
  return fail(socket_error_text(got.error));
}

// Reads what there is of a declaration. true = over (whole, or none comes: the sender closed,
// failed or waited too long); `flow` is set when it came whole and valid.
bool read_declaration(Declaring& d, Clock::time_point now,
                      std::optional<windows_token::FlowDeclaration>& flow) {
  const SocketTransfer got =
      receive_some(d.socket.get(), d.bytes.data() + d.got, d.bytes.size() - d.got);
  if (got.bytes > 0) {
    d.got += static_cast<std::size_t>(got.bytes);
    if (d.got < d.bytes.size()) return now >= d.by;
    flow = windows_token::decode_flow_declaration(d.bytes);
    return true;
  }
  if (got.bytes == 0) return true;
  const SocketError kind = classify_socket_error(got.error);
  return (kind != SocketError::would_block && kind != SocketError::interrupted) || now >= d.by;
}

// One serving loop's state and steps (serve_tokens).
class TokenServer {
 public:
  TokenServer(std::vector<UniqueSocket> listeners, ControlPortHooks hooks, TokenServing serving,
              bool declarations)
      : door_("token sync", std::move(hooks)),
        serving_(serving),
        declarations_(declarations),
        rules_(listeners.size(),
               [this](std::size_t port, const std::string& host, Clock::time_point accepted) {
                 return token_standing(*serving_.evidence, ports_[port].data_port, host, accepted,
                                       serving_.tcp, serving_.port_assignment);
               }),
        flows_(listeners.size()) {
    for (UniqueSocket& listener : listeners) {
      TokenPort& port = ports_.emplace_back();
      auto bound = local_address_of(listener.get());
      port.port = bound ? bound->port() : 0;
      port.data_port = static_cast<uint16_t>(port.port - windows_token::port_offset);
      port.listener = std::move(listener);
    }
  }

  Status run(const std::atomic<bool>& stop,
             std::vector<std::optional<windows_token::FlowDeclaration>>* flows) {
    for (;;) {
      if (stop.load()) return fail("token sync: stopped");
      apply(rules_.decide(Clock::now()));
      if (rules_.all_counted() && declaring_.empty()) {
        if (flows != nullptr) *flows = flows_;
        return ok();
      }
      poll_once();
    }
  }

 private:
  void say_closed(const SocketAddress& peer, std::size_t port, const std::string& why) {
    door_.log(fmt::format("token sync: closed a connection from {} on port {}: {}",
                          peer.to_string(), ports_[port].port, why),
              true);
  }
  std::vector<Candidate>::iterator find(TokenPortRules::Id id) {
    return std::find_if(candidates_.begin(), candidates_.end(),
                        [id](const Candidate& c) { return c.id == id; });
  }
  void close_all(const std::vector<TokenPortRules::Closed>& closed) {
    for (const TokenPortRules::Closed& c : closed) {
      auto it = find(c.id);
      if (it == candidates_.end()) continue;
      say_closed(it->peer, c.port, why_closed(c.why, ports_[c.port], c.host, serving_.tcp));
      candidates_.erase(it);  // closes it
    }
  }

  void apply(const TokenPortRules::Step& step) {
    if (step.started_over > 0) {
      door_.log(
          fmt::format("token sync: {} of {} threads' tokens came, the others not within "
                      "{} s of the first: the exchange starts over (their sender failed)",
                      step.started_over, ports_.size(), windows_token::rest_of_tokens_wait.count()),
          true);
      declaring_.clear();
      std::fill(flows_.begin(), flows_.end(), std::nullopt);
      serving_.evidence->forget_tokens();
    }
    close_all(step.closed);
    for (const TokenPortRules::Counted& counted : step.counted) {
      auto it = find(counted.id);
      if (it == candidates_.end()) continue;
      Candidate candidate = std::move(*it);
      candidates_.erase(it);
      if (Status sent = send_token(candidate.socket.get()); !sent) {
        say_closed(candidate.peer, counted.port,
                   "cannot send it the receiver's token: " + sent.error().message);
        rules_.send_failed(counted);
        continue;
      }
      serving_.evidence->token_counted(ports_[counted.port].data_port, counted.host);
      if (declarations_)
        declaring_.push_back(
            {counted.port, std::move(candidate.socket), {}, 0, Clock::now() + kDeclarationWait});
    }
  }

  void accept_on(std::size_t port) {
    SocketAddress peer;
    std::optional<UniqueSocket> accepted =
        door_.accept(ports_[port].listener.get(), ports_[port].port, &peer);
    if (!accepted) return;  // none pending, refused (closed, the port listens on), or resting
    std::vector<TokenPortRules::Closed> crowded;
    const TokenPortRules::Id id = rules_.accepted(port, peer.host(), Clock::now(), crowded);
    close_all(crowded);
    candidates_.push_back({id, port, peer, std::move(*accepted), false});
  }

  void read_candidate(TokenPortRules::Id id) {
    auto it = find(id);
    if (it == candidates_.end()) return;
    auto got = read_token(it->socket.get());
    if (got && *got) {
      it->token = true;
      rules_.token_read(id);
    } else if (!got) {
      say_closed(it->peer, it->port, got.error().message);
      rules_.gone(id);
      candidates_.erase(it);
    }
  }

  void read_declaring(std::size_t index) {
    Declaring& d = declaring_[index];
    if (read_declaration(d, Clock::now(), flows_[d.port]))
      declaring_.erase(declaring_.begin() + static_cast<std::ptrdiff_t>(index));
  }

  void poll_once() {
    const Clock::time_point now = Clock::now();
    // No declaration in time: this thread's sender declared nothing.
    declaring_.erase(std::remove_if(declaring_.begin(), declaring_.end(),
                                    [now](const Declaring& d) { return now >= d.by; }),
                     declaring_.end());
    // Out of descriptors a moment ago: the listeners rest (no spin), the exchanges go on.
    const bool listening = door_.listening(now);
    enum class Kind { listener, candidate, declaring };
    std::vector<SocketPoll> entries;
    std::vector<std::pair<Kind, std::size_t>> what;  // port, candidate id or declaring index
    for (std::size_t i = 0; listening && i < ports_.size(); ++i) {
      if (!rules_.waiting(i)) continue;  // its token counted: later connections wait unserved
      entries.push_back(SocketPoll{ports_[i].listener.get()});
      what.emplace_back(Kind::listener, i);
    }
    for (const Candidate& c : candidates_) {
      if (c.token) continue;  // judged by the rules from here
      entries.push_back(SocketPoll{c.socket.get()});
      what.emplace_back(Kind::candidate, static_cast<std::size_t>(c.id));
    }
    for (std::size_t i = 0; i < declaring_.size(); ++i) {
      entries.push_back(SocketPoll{declaring_[i].socket.get()});
      what.emplace_back(Kind::declaring, i);
    }
    const int wait_ms = door_.wait_ms(now, kTokenServerPollMs);
    if (entries.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
      return;
    }
    if (poll_sockets(entries, wait_ms) <= 0) return;  // nothing, or interrupted: look again
    // Declarations last and from the back: reading one may remove it.
    for (std::size_t i = entries.size(); i-- > 0;) {
      if (!entries[i].readable && !entries[i].hung_up) continue;
      const auto [kind, index] = what[i];
      if (kind == Kind::listener)
        accept_on(index);
      else if (kind == Kind::candidate)
        read_candidate(index);
      else
        read_declaring(index);
    }
  }

  ControlPortDoor door_;
  TokenServing serving_;
  bool declarations_;
  std::vector<TokenPort> ports_;
  TokenPortRules rules_;
  std::vector<Candidate> candidates_;
  std::vector<Declaring> declaring_;
  std::vector<std::optional<windows_token::FlowDeclaration>> flows_;  // per thread
};

}  // namespace

Expected<std::vector<UniqueSocket>> listen_token_ports(
    const std::vector<SocketAddress>& endpoints) {
  std::vector<UniqueSocket> listeners;
  for (const SocketAddress& address : endpoints) {
    // Backlog 1, as the original's 0: the port is served by its poll loop.
    auto listener = listen_tcp(address, 1);
    if (!listener) return fail("token " + listener.error().message);
    listeners.push_back(std::move(*listener));
  }
  return listeners;
}

Status serve_tokens(std::vector<UniqueSocket> listeners, const std::atomic<bool>& stop,
                    ControlPortHooks hooks, TokenServing serving,
                    std::vector<std::optional<windows_token::FlowDeclaration>>* flows) {
  TokenServer server(std::move(listeners), std::move(hooks), serving, flows != nullptr);
  return server.run(stop, flows);
}

}  // namespace xttcp
