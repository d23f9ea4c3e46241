#include "engine/control/sync_server.hh"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <span>
#include <vector>

#include "engine/control/sync_codes.hh"
#include "engine/control/sync_wire.hh"
#include "engine/net/socket_io.hh"
#include "engine/net/socket_setup.hh"

namespace xttcp {

namespace {

constexpr int kLoopTimeoutMs = 200;  // bounds how long stop() waits for the loop
// After accept() failed for want of descriptors or memory: poll the listener again after this.
constexpr std::chrono::milliseconds kListenerRest{250};
// One port, with max_undecided connections not yet saying what they are: accept again after this.
constexpr std::chrono::milliseconds kUndecidedRest{20};

using SteadyClock = std::chrono::steady_clock;

}  // namespace

struct SyncServer::Connection {
  Connection(uint32_t max_requests, bool require_auth, bool takes_streams)
      : input(max_requests, require_auth, takes_streams) {}

  int id = 0;
  UniqueSocket fd;
  SocketAddress address;
  std::string peer;     // "10.0.0.2:40312", for log lines
  std::string network;  // peer_network(): what the handshake bound per network counts
  SyncInput input;      // what its bytes are: requests and frames
  std::string out;      // bytes the socket has not taken yet
  bool broken = false;  // a write failed; closed after the current batch of events
  bool result_sent = false;
  SteadyClock::time_point accepted_at = SteadyClock::now();
  std::optional<SteadyClock::time_point> parked_at;  // -M: since it was told to wait
  // --auth-key: the nonces once the sender's came, and what both ends compute from them.
  std::optional<sync_auth::Session> session;
  bool handed_over = false;  // one port: a data connection, its socket the stream hook's now
};

Expected<std::unique_ptr<SyncServer>> SyncServer::listen(const SocketAddress& address,
                                                         ReceiverSync::Config config,
                                                         SyncServerHooks hooks, SyncLimits limits,
                                                         std::optional<sync_auth::Key> key) {
  const std::string where = address.is_any()
                                ? fmt::format("sync port {}", address.port())
                                : fmt::format("sync port {} on {}", address.port(), address.host());
  auto opened = open_tcp_socket(address.family());
  if (!opened) return fail(where + ": cannot create a socket: " + opened.error().message);
  UniqueSocket listener = std::move(*opened);
  if (Status bound = bind_listener(listener.get(), address); !bound)
    return fail(where + ": " + bound.error().message);
  if (::listen(listener.get(), SOMAXCONN) != 0)
    return fail(where + ": listen: " + socket_error_text(last_socket_error()));
  // One port: a connection is taken once its first bytes came (a sync request or a data
  // preamble), so it says at once what it is and a silent one never takes a seat.
  if (hooks.stream)
    if (Status deferred = defer_accept_until_data(listener.get()); !deferred)
      return fail(where + ": " + deferred.error().message);

  auto bound = local_address_of(listener.get());
  if (!bound) return fail(where + ": " + bound.error().message);
  auto wake = WakeSignal::create();
  if (!wake) return fail(where + ": " + wake.error().message);
  return std::unique_ptr<SyncServer>(new SyncServer(std::move(listener), std::move(*wake),
                                                    bound->port(), config, std::move(hooks), limits,
                                                    std::move(key)));
}

SyncServer::SyncServer(UniqueSocket listener, WakeSignal wake, uint16_t port,
                       ReceiverSync::Config config, SyncServerHooks hooks, SyncLimits limits,
                       std::optional<sync_auth::Key> key)
    : listener_(std::move(listener)),
      wake_(std::move(wake)),
      key_(std::move(key)),
      port_(port),
      hooks_(std::move(hooks)),
      limits_(limits),
      log_budget_(limits.log_lines_per_period, limits.log_period),
      test_budget_(limits.tests_per_period, limits.test_period),
      sync_(config) {}

SyncServer::~SyncServer() { stop(); }

void SyncServer::start() {
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { run(); });
}

void SyncServer::stop() {
  stopping_ = true;
  wake_.notify();
  if (thread_.joinable()) thread_.join();
}

void SyncServer::test_finished() {
  {
    std::lock_guard lock(mutex_);
    sync_.test_finished();
    test_finished_at_ = SteadyClock::now();
  }
  wake_.notify();  // the settle deadlines run from now
}

void SyncServer::test_ran_its_course() {
  std::lock_guard lock(mutex_);
  test_budget_.give_back();
}

int32_t SyncServer::state() const {
  std::lock_guard lock(mutex_);
  return sync_.state();
}

void SyncServer::hurry_settle(std::chrono::milliseconds grace) {
  {
    std::lock_guard lock(mutex_);
    const auto hurried = SteadyClock::now() + grace - limits_.settle_limit;
    if (sync_.state() == sync_code::kStateFinished && hurried < test_finished_at_)
      test_finished_at_ = hurried;
  }
  wake_.notify();
}

bool SyncServer::takes_streams_from(int peer) const {
  std::lock_guard lock(mutex_);
  return sync_.state() != sync_code::kStateRunning || sync_.is_participant(peer);
}

bool SyncServer::senders_present() const {
  std::lock_guard lock(mutex_);
  return !sync_.participants().empty();
}

void SyncServer::publish_result(std::string result_json) {
  {
    std::lock_guard lock(mutex_);
    result_ = std::move(result_json);
    has_result_ = true;
  }
  wake_.notify();
}

void SyncServer::log(std::string_view line, bool is_error) {
  if (!hooks_.log) return;
  const LineBudget::Verdict verdict = log_budget_.take(SteadyClock::now());
  if (verdict.suppressed_before > 0)
    hooks_.log(fmt::format("sync: {} more line(s) about sync connections were not logged",
                           verdict.suppressed_before),
               true);
  if (verdict.print) hooks_.log(line, is_error);
}

void SyncServer::say_suppressed_lines() {
  const uint64_t held = log_budget_.overdue(SteadyClock::now());
  if (held > 0 && hooks_.log)
    hooks_.log(fmt::format("sync: {} more line(s) about sync connections were not logged", held),
               true);
}

void SyncServer::run() {
  std::vector<SocketPoll> entries;
  std::vector<int> ids;  // entries[2 + i] is connection ids[i]
  while (!stopping_) {
    SocketPoll listener{listener_.get()};
    listener.want_read = SteadyClock::now() >= listener_resumes_;
    entries.assign({listener, SocketPoll{wake_.pollable()}});
    ids.clear();
    for (auto& [id, connection] : connections_) {
      SocketPoll entry{connection->fd.get()};
      entry.want_write = !connection->out.empty();
      // A peer that does not read its replies gets no more until it does.
      entry.want_read = connection->out.size() < limits_.max_pending_out;
      entries.push_back(entry);
      ids.push_back(id);
    }
    const int count = poll_sockets(entries, kLoopTimeoutMs);
    if (count < 0) {
      const int error = last_socket_error();
      if (classify_socket_error(error) == SocketError::interrupted) continue;
      log("sync: poll failed: " + socket_error_text(error) + "; sync listener stopped", true);
      break;
    }
    if (entries[0].want_read && (entries[0].readable || entries[0].hung_up)) accept_all();
    if (entries[1].readable) wake_.drain();
    for (size_t i = 0; i < ids.size(); ++i) {
      const SocketPoll& entry = entries[2 + i];
      auto found = connections_.find(ids[i]);
      if (found == connections_.end()) continue;  // closed while handling an earlier one
      if (entry.writable && !flush(*found->second)) found->second->broken = true;
      if (entry.want_read && (entry.readable || entry.hung_up)) on_readable(ids[i]);
    }
    close_overdue_connections();
    say_suppressed_lines();
    deliver_result();
    std::vector<std::pair<int, std::string>> broken;
    for (auto& [id, connection] : connections_)
      if (connection->broken) broken.emplace_back(id, connection->peer);
    for (auto& [id, peer] : broken) close_connection(id, "cannot write to sender " + peer, true);
  }
  // A result published just before stop() still reaches the senders that asked for it: the
  // frames are small, so one last non-blocking write normally takes them whole.
  deliver_result();
  for (auto& [id, connection] : connections_) flush(*connection);
  connections_.clear();  // teardown: the engine is stopping, no hooks
  // Lines still held back are said now: no later line will say them.
  if (const uint64_t held = log_budget_.suppressed(); held > 0 && hooks_.log)
    hooks_.log(fmt::format("sync: {} more line(s) about sync connections were not logged", held),
               true);
}

void SyncServer::accept_all() {
  for (;;) {
    if (hooks_.stream && undecided_connections() >= limits_.max_undecided) {
      // One port: the rest wait in the backlog while these say what they are (or time out).
      listener_resumes_ = SteadyClock::now() + kUndecidedRest;
      return;
    }
    SocketAddress peer;
    auto accepted = accept_connection(listener_.get(), &peer);
    if (!accepted) {
      // Out of descriptors (or memory): the pending connection stays queued, so retrying now
      // would spin. Rest the listener and try again; what is open meanwhile is served.
      listener_resumes_ = SteadyClock::now() + kListenerRest;
      log(fmt::format("sync: cannot accept a sync connection: {}; retrying every {} ms",
                      accepted.error().message, kListenerRest.count()),
          true);
      return;
    }
    if (!*accepted) return;  // none pending
    if (hooks_.admit && !hooks_.admit(peer)) {
      log(fmt::format("sync: closed a connection from {}: not served here (--allow, --max-clients)",
                      peer.to_string()),
          true);
      continue;  // closes it
    }
    if (hooks_.stream) {
      // One port: the seat and network bounds wait until it says it is a sync connection,
      // which its first bytes, here already, say now.
      const int id = add_connection(std::move(**accepted), peer, peer_network(peer));
      on_readable(id);
      continue;
    }
    if (connections_.size() >= limits_.max_connections) {
      ++refused_connections_;
      log(fmt::format("sync: {} already has {} sync connections open; closed the one from {} "
                      "({} so far)",
                      port_, connections_.size(), peer.to_string(), refused_connections_),
          true);
      continue;  // closes it
    }
    std::string network = peer_network(peer);
    if (!network_has_room(network)) {
      ++refused_connections_;
      log(fmt::format("sync: closed a connection from {}: {} connections from {} are already "
                      "opening a test ({} so far)",
                      peer.to_string(), limits_.max_handshaking_per_network, network,
                      refused_connections_),
          true);
      continue;  // closes it
    }
    add_connection(std::move(**accepted), peer, std::move(network));
  }
}

int SyncServer::add_connection(UniqueSocket socket, const SocketAddress& peer,
                               std::string network) {
  // A data connection (one port) keeps the options its worker gives it.
  if (!hooks_.stream) set_no_delay(socket.get());
  auto connection = std::make_unique<Connection>(limits_.max_requests, key_.has_value(),
                                                 static_cast<bool>(hooks_.stream));
  connection->id = next_id_++;
  connection->address = peer;
  connection->peer = peer.to_string();
  connection->network = std::move(network);
  connection->fd = std::move(socket);
  const int key = connection->id;
  connections_[key] = std::move(connection);
  return key;
}

size_t SyncServer::undecided_connections() const {
  return static_cast<size_t>(
      std::count_if(connections_.begin(), connections_.end(),
                    [](const auto& entry) { return entry.second->input.undecided(); }));
}

bool SyncServer::seat_sync_connection(const Connection& connection) {
  set_no_delay(connection.fd.get());
  const size_t seated = connections_.size() - undecided_connections() - 1;  // itself decided now
  if (seated >= limits_.max_connections) {
    ++refused_connections_;
    log(fmt::format("sync: {} already has {} sync connections open; closed the one from {} "
                    "({} so far)",
                    port_, seated, connection.peer, refused_connections_),
        true);
    return false;
  }
  // It counts itself among its network's opening connections: room means under the bound then.
  if (!network_has_room(connection.network, connection.id)) {
    ++refused_connections_;
    log(fmt::format("sync: closed a connection from {}: {} connections from {} are already "
                    "opening a test ({} so far)",
                    connection.peer, limits_.max_handshaking_per_network, connection.network,
                    refused_connections_),
        true);
    return false;
  }
  return true;
}

void SyncServer::on_readable(int id) {
  char buffer[4096];
  for (;;) {
    auto found = connections_.find(id);
    if (found == connections_.end()) return;
    Connection& connection = *found->second;
    const SocketTransfer received =
        receive_some(connection.fd.get(), buffer, connection.input.readable_now(sizeof buffer));
    if (received.bytes > 0) {
      // Whole messages are handled as they complete, so the buffer stays one frame at most.
      connection.input.append(std::string_view(buffer, static_cast<size_t>(received.bytes)));
      if (!process_input(connection)) return close_connection(id, "", false);
      continue;
    }
    if (received.bytes == 0) return close_connection(id, "", false);
    const SocketError kind = classify_socket_error(received.error);
    if (kind == SocketError::interrupted) continue;
    if (kind == SocketError::would_block) return;
    const bool quiet = kind == SocketError::reset;  // a sender killed mid-test is not our error
    return close_connection(
        id, "cannot read from sender " + connection.peer + ": " + socket_error_text(received.error),
        !quiet);
  }
}

bool SyncServer::network_has_room(const std::string& network, int except) const {
  size_t opening = 0;
  std::lock_guard lock(mutex_);
  for (const auto& [id, connection] : connections_)
    if (id != except && connection->network == network && !connection->input.undecided() &&
        !sync_.is_engaged(id))
      ++opening;
  return opening < limits_.max_handshaking_per_network;
}

bool SyncServer::process_input(Connection& connection) {
  for (;;) {
    const bool was_undecided = connection.input.undecided();
    SyncInput::Message message = connection.input.next();
    if (message.kind == SyncInput::Message::Kind::data_stream) {
      const auto* bytes = reinterpret_cast<const uint8_t*>(message.payload.data());
      const std::optional<sync_auth::Opening> opening =
          sync_auth::opening_in({bytes, message.payload.size()});
      connection.handed_over = true;
      if (opening) hooks_.stream(std::move(connection.fd), connection.address, *opening);
      return false;  // it leaves the listener, unannounced (closed here if no preamble at all)
    }
    if (was_undecided && !connection.input.undecided() && !seat_sync_connection(connection))
      return false;
    switch (message.kind) {
      case SyncInput::Message::Kind::none: return true;
      case SyncInput::Message::Kind::data_stream: return false;  // taken above
      case SyncInput::Message::Kind::too_many_requests:
        log(fmt::format("sync: {} sent more than {} requests; connection closed", connection.peer,
                        limits_.max_requests),
            true);
        return false;
      case SyncInput::Message::Kind::frame_too_large:
        log(fmt::format("sync: sender {} sent a frame of {} bytes, over the {} KiB limit; "
                        "connection closed",
                        connection.peer, message.length, message.limit >> 10),
            true);
        return false;
      case SyncInput::Message::Kind::request:
        if (!handle_request(connection, message.value)) return false;
        break;
      case SyncInput::Message::Kind::auth_hello:
      case SyncInput::Message::Kind::auth_proof:
      case SyncInput::Message::Kind::not_authenticated:
        if (!handle_auth(connection, message)) return false;
        break;
      case SyncInput::Message::Kind::hello_frame:
      case SyncInput::Message::Kind::result_frame:
        if (!handle_frame(connection, message.kind == SyncInput::Message::Kind::hello_frame,
                          std::move(message.payload)))
          return false;
        break;
    }
  }
}

bool SyncServer::handle_request(Connection& connection, int32_t request) {
  ReceiverSync::Outcome outcome;
  uint32_t cycle_s;
  std::vector<int> native_senders;
  const auto now = SteadyClock::now();
  {
    std::lock_guard lock(mutex_);
    sync_.set_starts_allowed(test_budget_.has_room(now));
    outcome = sync_.on_request(connection.id, request);
    cycle_s = sync_.negotiated_cycle_s();
    if (outcome.stop_early) test_finished_at_ = now;  // its senders' settle deadline runs
    if (outcome.start) {  // a new test: the previous test's result is stale
      test_budget_.take(now);
      result_.clear();
      has_result_ = false;
      for (int id : sync_.participants()) {
        auto found = connections_.find(id);
        if (found != connections_.end() && found->second->input.native())
          native_senders.push_back(id);
      }
    }
  }
  // Every line a request makes is the peer's doing, a test's start included: all share the
  // budget. Refusals name the connection.
  for (const auto& line : outcome.log_info) log(line, false);
  for (const auto& line : outcome.log_error)
    log(fmt::format("sync: {}: {}", connection.peer, line), true);
  // Light on before the 'R' leaves, like NTTTCP: the receiver window leads by half an RTT.
  if (outcome.start && hooks_.start) hooks_.start(cycle_s, native_senders);
  if (outcome.stop_early && hooks_.early_exit) hooks_.early_exit();
  for (const auto& reply : outcome.replies) {
    auto found = connections_.find(reply.peer);
    if (found != connections_.end() && reply.value == sync_code::kPleaseWait &&
        !found->second->parked_at)
      found->second->parked_at = now;
    std::string bytes;
    sync_wire::append_int(bytes, reply.value);
    send_bytes(reply.peer, bytes);
  }
  if (!connection.input.on_outcome(outcome)) {
    log(fmt::format("sync: {} said hello twice; connection closed", connection.peer), true);
    return false;
  }
  return true;
}

bool SyncServer::handle_auth(Connection& connection, const SyncInput::Message& message) {
  using Kind = SyncInput::Message::Kind;
  if (message.kind == Kind::not_authenticated) {
    // NTTTCP's first message is 'X' or a cycle; an xttcp sender without a key says HELLO.
    const bool xttcp = message.value == sync_code::kHello;
    return refuse_unauthenticated(
        connection, xttcp ? "an xttcp sender without --auth-key"
                          : "an NTTTCP-compatible sender cannot authenticate (--auth-key is "
                            "for xttcp senders only)");
  }
  if (!key_) {
    // A sender holding a key, at this receiver without one: it must not think it is served.
    std::string bytes;
    sync_wire::append_int(bytes, sync_code::kAuthNotHere);
    send_bytes(connection.id, bytes);
    log(fmt::format("sync: {} offered --auth-key, which this receiver does not have; connection "
                    "closed",
                    connection.peer),
        true);
    flush(connection);
    return false;
  }
  if (message.kind == Kind::auth_hello) {
    sync_auth::Nonce sender{}, receiver{};
    std::copy(message.payload.begin(), message.payload.end(), sender.begin());
    auto nonce = sync_auth::new_nonce();
    auto session = nonce ? sync_auth::session(*key_, sender, *nonce)
                         : Expected<sync_auth::Session>(nonce.error());
    if (!session) {
      log("sync: --auth-key: " + session.error().message, true);
      return false;
    }
    receiver = *nonce;
    connection.session = *session;
    std::string bytes;
    sync_wire::append_int(bytes, sync_code::kAuthChallenge);
    bytes.append(reinterpret_cast<const char*>(receiver.data()), receiver.size());
    bytes.append(reinterpret_cast<const char*>(session->receiver_proof.data()),
                 session->receiver_proof.size());
    send_bytes(connection.id, bytes);
    connection.input.challenged();
    return true;
  }
  // The sender's proof.
  const auto* proof = reinterpret_cast<const uint8_t*>(message.payload.data());
  if (!connection.session ||
      !crypto::equal_in_constant_time(std::span(proof, message.payload.size()),
                                      connection.session->sender_proof))
    return refuse_unauthenticated(connection, "its proof is wrong (its --auth-key differs)");
  connection.input.authenticated();
  if (hooks_.authenticated) hooks_.authenticated(connection.id, connection.session->data_cookie);
  std::string bytes;
  sync_wire::append_int(bytes, sync_code::kAuthOk);
  send_bytes(connection.id, bytes);
  return true;
}

bool SyncServer::refuse_unauthenticated(Connection& connection, std::string_view why) {
  if (hooks_.unauthenticated) hooks_.unauthenticated();
  log(fmt::format("sync: closed a connection from {}: it did not authenticate (--auth-key): {}",
                  connection.peer, why),
      true);
  return false;
}

bool SyncServer::handle_frame(Connection& connection, bool hello_frame, std::string payload) {
  if (hello_frame) {
    std::optional<SocketAddress> reached_at;
    if (auto local = local_address_of(connection.fd.get())) reached_at = *local;
    Expected<std::string> answer = hooks_.native_hello
                                       ? hooks_.native_hello(connection.id, payload, reached_at)
                                       : Expected<std::string>(std::string("{}"));
    if (!answer) {
      // The sender is told why before the connection closes: its hello frame says so.
      log(fmt::format("sync: refused sender {}: {}", connection.peer, answer.error().message),
          true);
      nlohmann::json refusal = {{"type", "hello"}, {"refused", answer.error().message}};
      std::string bytes;
      sync_wire::append_frame(
          bytes, refusal.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      send_bytes(connection.id, bytes);
      return false;
    }
    std::string hello = std::move(*answer);
    // A receiver that would answer its busy check "running" says why here, and whether it
    // passes in a moment: the wire's busy check has no word for it.
    std::optional<ReceiverSync::Busy> busy;
    {
      std::lock_guard lock(mutex_);
      sync_.set_starts_allowed(test_budget_.has_room(SteadyClock::now()));
      busy = sync_.busy();
    }
    if (busy) {
      auto doc = nlohmann::ordered_json::parse(hello, nullptr, false);
      if (doc.is_object()) {
        doc["busy"] = {{"why", busy->why}, {"passing", busy->passing}};
        hello = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      }
    }
    if (hello.size() > sync_code::kMaxFrameBytes) {
      log("sync: the receiver's hello frame is over the size limit; sending {}", true);
      hello = "{}";
    }
    std::string bytes;
    sync_wire::append_frame(bytes, hello);
    send_bytes(connection.id, bytes);
    return true;
  }
  bool participant;
  {
    std::lock_guard lock(mutex_);
    participant = sync_.is_participant(connection.id);
  }
  if (!participant) {
    // Its 'E' came in an earlier test, and another sender has started a new one since: this
    // result is no sender's of the test the engine collects results for now.
    log(fmt::format("sync: {} sent a result after a new test started without it; connection "
                    "closed",
                    connection.peer),
        true);
    return false;
  }
  if (hooks_.peer_result) hooks_.peer_result(payload);
  deliver_result();
  return true;
}

void SyncServer::deliver_result() {
  bool wanted = false;
  for (auto& [fd, connection] : connections_)
    wanted |= connection->input.result_received() && !connection->result_sent;
  if (!wanted) return;
  std::string frame;
  {
    std::lock_guard lock(mutex_);
    if (!has_result_) return;
    if (result_.size() > sync_code::kMaxFrameBytes) {
      log("sync: the receiver's result is over the frame size limit; not sent", true);
      result_.clear();
      has_result_ = false;
      return;
    }
    sync_wire::append_frame(frame, result_);
  }
  for (auto& [fd, connection] : connections_) {
    if (!connection->input.result_received() || connection->result_sent) continue;
    connection->result_sent = true;
    connection->out.append(frame);
    if (!flush(*connection)) connection->broken = true;
  }
}

void SyncServer::send_bytes(int id, std::string_view bytes) {
  auto found = connections_.find(id);
  if (found == connections_.end()) return;  // that peer left meanwhile
  Connection& connection = *found->second;
  connection.out.append(bytes);
  if (!flush(connection)) connection.broken = true;
}

bool SyncServer::flush(Connection& connection) {
  size_t sent_total = 0;
  bool healthy = true;
  while (sent_total < connection.out.size()) {
    const SocketTransfer sent = send_some(connection.fd.get(), connection.out.data() + sent_total,
                                          connection.out.size() - sent_total);
    if (sent.bytes > 0) {
      sent_total += static_cast<size_t>(sent.bytes);
    } else if (sent.bytes < 0 && classify_socket_error(sent.error) == SocketError::interrupted) {
      continue;
    } else {
      healthy = sent.bytes < 0 && classify_socket_error(sent.error) == SocketError::would_block;
      break;
    }
  }
  connection.out.erase(0, sent_total);
  return healthy;
}

void SyncServer::close_connection(int id, std::string_view why, bool is_error) {
  auto found = connections_.find(id);
  if (found == connections_.end()) return;
  if (found->second->handed_over) {  // a data connection: never a sync peer
    connections_.erase(found);
    return;
  }
  ReceiverSync::Departure departure;
  {
    std::lock_guard lock(mutex_);
    departure = sync_.on_peer_closed(id);
  }
  departure.peer = id;
  if (!why.empty()) log("sync: " + std::string(why) + "; connection closed", is_error);
  connections_.erase(found);  // closes the socket
  if (hooks_.peer_closed) hooks_.peer_closed(departure);
}

void SyncServer::close_overdue_connections() {
  using std::chrono::duration_cast;
  using std::chrono::seconds;
  const auto now = SteadyClock::now();
  std::vector<std::pair<int, std::string>> overdue;
  {
    std::lock_guard lock(mutex_);
    const bool finished = sync_.state() == sync_code::kStateFinished;
    for (auto& [id, connection] : connections_) {
      std::string why;
      if (sync_.is_parked(id)) {
        if (connection->parked_at && now - *connection->parked_at > limits_.park_limit)
          why = fmt::format("waited {} s for the last client ('-L') to start the test",
                            duration_cast<seconds>(limits_.park_limit).count());
      } else if (sync_.is_participant(id)) {
        if (finished && now - test_finished_at_ > limits_.settle_limit)
          why = fmt::format("is still here {} s after its test ended",
                            duration_cast<seconds>(limits_.settle_limit).count());
      } else if (connection->input.undecided()) {
        if (now - connection->accepted_at > limits_.undecided_limit)
          why = fmt::format(
              "said neither a sync request nor a data preamble {} s after it "
              "connected",
              duration_cast<seconds>(limits_.undecided_limit).count());
      } else if (now - connection->accepted_at > limits_.handshake_limit) {
        why = fmt::format("has not started a test {} s after it connected",
                          duration_cast<seconds>(limits_.handshake_limit).count());
      }
      if (!why.empty()) overdue.emplace_back(id, connection->peer + " " + why);
    }
  }
  for (auto& [id, why] : overdue) close_connection(id, why, false);
}

}  // namespace xttcp
