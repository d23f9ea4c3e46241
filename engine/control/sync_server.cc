#include "engine/control/sync_server.hh"

#include <fmt/format.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <vector>

#include "engine/control/sync_codes.hh"
#include "engine/control/sync_wire.hh"

namespace xttcp {

namespace {

constexpr int kLoopTimeoutMs = 200;  // bounds how long stop() waits for the loop
constexpr int kMaxEvents = 64;

std::string reason(int err) {
  std::string text = std::strerror(err);
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

std::string peer_name(const sockaddr_storage& storage, socklen_t length) {
  SocketAddress address;
  address.storage = storage;
  address.length = length;
  return address.to_string();
}

}  // namespace

struct SyncServer::Connection {
  enum class Expect { integer, hello_frame, result_frame };

  UniqueFd fd;
  std::string peer;  // "10.0.0.2:40312", for log lines
  std::string in;    // bytes not yet forming a whole message
  std::string out;   // bytes the socket has not taken yet
  bool watching_output = false;
  bool broken = false;  // a write failed; closed after the current batch of events
  Expect expect = Expect::integer;
  bool native = false;
  bool result_received = false;
  bool result_sent = false;
};

Expected<std::unique_ptr<SyncServer>> SyncServer::listen(const SocketAddress& address,
                                                         ReceiverSync::Config config,
                                                         SyncServerHooks hooks) {
  const std::string where = address.is_any()
                                ? fmt::format("sync port {}", address.port())
                                : fmt::format("sync port {} on {}", address.port(), address.host());
  UniqueFd listener(socket(address.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!listener.valid()) return fail(where + ": cannot create a socket: " + reason(errno));
  int one = 1;
  setsockopt(listener.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (address.family() == AF_INET6)
    setsockopt(listener.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
  if (bind(listener.get(), address.get(), address.length) != 0)
    return fail(where + ": " + reason(errno));
  if (::listen(listener.get(), SOMAXCONN) != 0) return fail(where + ": listen: " + reason(errno));

  SocketAddress bound;
  bound.length = sizeof bound.storage;
  if (getsockname(listener.get(), bound.get(), &bound.length) != 0)
    return fail(where + ": getsockname: " + reason(errno));

  UniqueFd epoll(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll.valid()) return fail(where + ": epoll_create1: " + reason(errno));
  UniqueFd wake(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!wake.valid()) return fail(where + ": eventfd: " + reason(errno));
  for (int fd : {listener.get(), wake.get()}) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = fd;
    if (epoll_ctl(epoll.get(), EPOLL_CTL_ADD, fd, &event) != 0)
      return fail(where + ": epoll_ctl: " + reason(errno));
  }
  return std::unique_ptr<SyncServer>(new SyncServer(std::move(listener), std::move(epoll),
                                                    std::move(wake), bound.port(), config,
                                                    std::move(hooks)));
}

SyncServer::SyncServer(UniqueFd listener, UniqueFd epoll, UniqueFd wake, uint16_t port,
                       ReceiverSync::Config config, SyncServerHooks hooks)
    : listener_(std::move(listener)),
      epoll_(std::move(epoll)),
      wake_(std::move(wake)),
      port_(port),
      hooks_(std::move(hooks)),
      sync_(config) {}

SyncServer::~SyncServer() { stop(); }

void SyncServer::start() {
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { run(); });
}

void SyncServer::stop() {
  stopping_ = true;
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t written = write(wake_.get(), &one, sizeof one);
  if (thread_.joinable()) thread_.join();
}

void SyncServer::test_finished() {
  std::lock_guard lock(mutex_);
  sync_.test_finished();
}

int32_t SyncServer::state() const {
  std::lock_guard lock(mutex_);
  return sync_.state();
}

void SyncServer::publish_result(std::string result_json) {
  {
    std::lock_guard lock(mutex_);
    result_ = std::move(result_json);
    has_result_ = true;
  }
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t written = write(wake_.get(), &one, sizeof one);
}

void SyncServer::log(std::string_view line, bool is_error) const {
  if (hooks_.log) hooks_.log(line, is_error);
}

void SyncServer::run() {
  epoll_event events[kMaxEvents];
  while (!stopping_) {
    const int count = epoll_wait(epoll_.get(), events, kMaxEvents, kLoopTimeoutMs);
    if (count < 0) {
      if (errno == EINTR) continue;
      log("sync: epoll_wait failed: " + reason(errno) + "; sync listener stopped", true);
      break;
    }
    for (int i = 0; i < count; ++i) {
      const int fd = events[i].data.fd;
      if (fd == listener_.get()) {
        accept_all();
      } else if (fd == wake_.get()) {
        uint64_t value;
        [[maybe_unused]] ssize_t drained = read(wake_.get(), &value, sizeof value);
      } else if (auto found = connections_.find(fd); found != connections_.end()) {
        if ((events[i].events & EPOLLOUT) && !flush(*found->second)) found->second->broken = true;
        if (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) on_readable(fd);
      }
    }
    deliver_result();
    std::vector<std::pair<int, std::string>> broken;
    for (auto& [fd, connection] : connections_)
      if (connection->broken) broken.emplace_back(fd, connection->peer);
    for (auto& [fd, peer] : broken) close_connection(fd, "cannot write to sender " + peer, true);
  }
  // A result published just before stop() still reaches the senders that asked for it: the
  // frames are small, so one last non-blocking write normally takes them whole.
  deliver_result();
  for (auto& [fd, connection] : connections_) flush(*connection);
  connections_.clear();  // teardown: the engine is stopping, no hooks
}

void SyncServer::accept_all() {
  for (;;) {
    sockaddr_storage peer{};
    socklen_t length = sizeof peer;
    UniqueFd fd(accept4(listener_.get(), reinterpret_cast<sockaddr*>(&peer), &length,
                        SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!fd.valid()) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK)
        log("sync: cannot accept a sync connection: " + reason(errno), true);
      return;
    }
    int one = 1;
    setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = fd.get();
    if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd.get(), &event) != 0) {
      log("sync: cannot watch a sync connection: " + reason(errno), true);
      continue;
    }
    auto connection = std::make_unique<Connection>();
    connection->peer = peer_name(peer, length);
    connection->fd = std::move(fd);
    const int key = connection->fd.get();
    connections_[key] = std::move(connection);
  }
}

void SyncServer::on_readable(int fd) {
  char buffer[4096];
  for (;;) {
    auto found = connections_.find(fd);
    if (found == connections_.end()) return;
    Connection& connection = *found->second;
    const ssize_t received = recv(fd, buffer, sizeof buffer, 0);
    if (received > 0) {
      // Whole messages are handled as they complete, so the buffer stays one frame at most.
      connection.in.append(buffer, static_cast<size_t>(received));
      if (!process_input(connection)) return close_connection(fd, "", false);
      continue;
    }
    if (received == 0) return close_connection(fd, "", false);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return;
    const bool quiet = errno == ECONNRESET;  // a sender killed mid-test is not our error
    return close_connection(fd, "cannot read from sender " + connection.peer + ": " + reason(errno),
                            !quiet);
  }
}

bool SyncServer::process_input(Connection& connection) {
  size_t used = 0;
  bool keep = true;
  while (keep && connection.in.size() - used >= 4) {
    const char* at = connection.in.data() + used;
    if (connection.expect == Connection::Expect::integer) {
      used += 4;
      keep = handle_request(connection, sync_wire::decode_int(at));
      continue;
    }
    const uint32_t length = sync_wire::decode_frame_length(at);
    if (length > sync_code::kMaxFrameBytes) {
      log(fmt::format("sync: sender {} sent a frame of {} bytes, over the {} MiB limit; "
                      "connection closed",
                      connection.peer, length, sync_code::kMaxFrameBytes >> 20),
          true);
      return false;
    }
    if (connection.in.size() - used - 4 < length) break;
    std::string payload(at + 4, length);
    used += 4 + static_cast<size_t>(length);
    keep = handle_frame(connection, std::move(payload));
  }
  connection.in.erase(0, used);
  return keep;
}

bool SyncServer::handle_request(Connection& connection, int32_t request) {
  ReceiverSync::Outcome outcome;
  uint32_t cycle_s;
  {
    std::lock_guard lock(mutex_);
    outcome = sync_.on_request(connection.fd.get(), request);
    cycle_s = sync_.negotiated_cycle_s();
    if (outcome.start) {  // a new test: the previous test's result is stale
      result_.clear();
      has_result_ = false;
    }
  }
  for (const auto& line : outcome.log_info) log(line, false);
  for (const auto& line : outcome.log_error) log(line, true);
  // Light on before the 'R' leaves, like NTTTCP: the receiver window leads by half an RTT.
  if (outcome.start && hooks_.start) hooks_.start(cycle_s);
  if (outcome.stop_early && hooks_.early_exit) hooks_.early_exit();
  for (const auto& reply : outcome.replies) {
    std::string bytes;
    sync_wire::append_int(bytes, reply.value);
    send_bytes(reply.peer, bytes);
  }
  if (outcome.native_hello) {
    connection.native = true;
    connection.expect = Connection::Expect::hello_frame;
  } else if (request == sync_code::kEarlyExit && connection.native) {
    connection.expect = Connection::Expect::result_frame;
  }
  return true;
}

bool SyncServer::handle_frame(Connection& connection, std::string payload) {
  std::string bytes;
  if (connection.expect == Connection::Expect::hello_frame) {
    connection.expect = Connection::Expect::integer;
    std::string hello = hooks_.native_hello ? hooks_.native_hello(payload) : std::string("{}");
    if (hello.size() > sync_code::kMaxFrameBytes) {
      log("sync: the receiver's hello frame is over the size limit; sending {}", true);
      hello = "{}";
    }
    sync_wire::append_frame(bytes, hello);
    send_bytes(connection.fd.get(), bytes);
    return true;
  }
  connection.expect = Connection::Expect::integer;
  connection.result_received = true;
  if (hooks_.peer_result) hooks_.peer_result(payload);
  deliver_result();
  return true;
}

void SyncServer::deliver_result() {
  bool wanted = false;
  for (auto& [fd, connection] : connections_)
    wanted |= connection->result_received && !connection->result_sent;
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
    if (!connection->result_received || connection->result_sent) continue;
    connection->result_sent = true;
    connection->out.append(frame);
    if (!flush(*connection)) connection->broken = true;
  }
}

void SyncServer::send_bytes(int fd, std::string_view bytes) {
  auto found = connections_.find(fd);
  if (found == connections_.end()) return;  // that peer left meanwhile
  Connection& connection = *found->second;
  connection.out.append(bytes);
  if (!flush(connection)) connection.broken = true;
}

bool SyncServer::flush(Connection& connection) {
  size_t sent_total = 0;
  bool healthy = true;
  while (sent_total < connection.out.size()) {
    const ssize_t sent = send(connection.fd.get(), connection.out.data() + sent_total,
                              connection.out.size() - sent_total, MSG_NOSIGNAL);
    if (sent > 0) {
      sent_total += static_cast<size_t>(sent);
    } else if (sent < 0 && errno == EINTR) {
      continue;
    } else {
      healthy = sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
      break;
    }
  }
  connection.out.erase(0, sent_total);
  if (healthy) watch_output(connection, !connection.out.empty());
  return healthy;
}

void SyncServer::watch_output(Connection& connection, bool want) {
  if (connection.watching_output == want) return;
  epoll_event event{};
  event.events = EPOLLIN | (want ? EPOLLOUT : 0u);
  event.data.fd = connection.fd.get();
  if (epoll_ctl(epoll_.get(), EPOLL_CTL_MOD, connection.fd.get(), &event) == 0)
    connection.watching_output = want;
}

void SyncServer::close_connection(int fd, std::string_view why, bool is_error) {
  auto found = connections_.find(fd);
  if (found == connections_.end()) return;
  bool sender_left_test;
  {
    std::lock_guard lock(mutex_);
    sender_left_test = sync_.on_peer_closed(fd);
  }
  if (!why.empty()) log("sync: " + std::string(why) + "; connection closed", is_error);
  connections_.erase(found);  // closes the fd (epoll forgets it)
  if (hooks_.peer_closed) hooks_.peer_closed(sender_left_test);
}

}  // namespace xttcp
