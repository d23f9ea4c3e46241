#include "engine/control/sync_client.hh"

#include <fmt/format.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "engine/control/sync_codes.hh"
#include "engine/control/sync_wire.hh"
#include "engine/net/socket_setup.hh"

namespace xttcp {

namespace {

std::string reason(int err) {
  std::string text = std::strerror(err);
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

std::string describe(std::chrono::milliseconds timeout) {
  const auto ms = timeout.count();
  if (ms % 1000 == 0) return fmt::format("{} s", ms / 1000);
  if (ms > 1000) return fmt::format("{:.1f} s", static_cast<double>(ms) / 1000.0);
  return fmt::format("{} ms", ms);
}

// Waits until `fd` is ready for `events` or the deadline passes: >0 ready, 0 timeout, <0 error.
int wait_ready(int fd, short events, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    // Round up so a sub-millisecond remainder still polls once instead of spinning.
    const int wait_ms = static_cast<int>(std::clamp<int64_t>(left.count() + 1, 0, 1 << 30));
    pollfd entry{fd, events, 0};
    const int rc = poll(&entry, 1, left.count() < 0 ? 0 : wait_ms);
    if (rc < 0 && errno == EINTR) continue;
    return rc;
  }
}

}  // namespace

Expected<SyncClient> SyncClient::connect(const SocketAddress& receiver,
                                         const std::optional<SocketAddress>& source,
                                         std::chrono::milliseconds timeout) {
  const std::string who = "sync: receiver " + receiver.to_string();
  UniqueFd fd(socket(receiver.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return fail("sync: cannot create a socket: " + reason(errno));
  int one = 1;
  setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

  if (source) {
    if (auto device = interface_of(*source)) {
      // Like NTTTCP's -a: keep the sync traffic on that interface. Needs CAP_NET_RAW; without
      // it the bind below still selects the address, which is what matters.
      if (setsockopt(fd.get(), SOL_SOCKET, SO_BINDTODEVICE, device->c_str(),
                     static_cast<socklen_t>(device->size())) != 0 &&
          errno != EPERM)
        return fail(fmt::format("sync: cannot bind to device {} (owner of -a {}): {}", *device,
                                source->host(), reason(errno)));
    }
    setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd.get(), source->get(), source->length) != 0)
      return fail(fmt::format("sync: cannot bind the sync connection to source {}: {}",
                              source->to_string(), reason(errno)));
  }

  int err = 0;
  if (::connect(fd.get(), receiver.get(), receiver.length) != 0) {
    err = errno;
    if (err == EINPROGRESS) {
      const int ready = wait_ready(fd.get(), POLLOUT, Clock::now() + timeout);
      if (ready == 0)
        return fail(
            fmt::format("{} did not answer within {} (is it reachable?)", who, describe(timeout)));
      if (ready < 0) return fail("sync: poll: " + reason(errno));
      socklen_t length = sizeof err;
      if (getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &length) != 0) err = errno;
    }
  }
  if (err == ECONNREFUSED) return fail(who + " refused the connection (is the receiver running?)");
  if (err != 0) return fail("sync: cannot connect to " + who.substr(6) + ": " + reason(err));
  return SyncClient(std::move(fd), receiver);
}

Status SyncClient::write_all(std::string_view bytes, Clock::time_point deadline,
                             std::chrono::milliseconds timeout) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t sent = send(fd_.get(), bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (sent > 0) {
      done += static_cast<size_t>(sent);
      continue;
    }
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      const int ready = wait_ready(fd_.get(), POLLOUT, deadline);
      if (ready == 0) return fail("sync: the receiver took nothing within " + describe(timeout));
      if (ready < 0) return fail("sync: poll: " + reason(errno));
      continue;
    }
    if (errno == EPIPE || errno == ECONNRESET) return fail("sync: receiver closed the connection");
    return fail("sync: cannot send to the receiver: " + reason(errno));
  }
  return ok();
}

Status SyncClient::read_exact(char* into, size_t size, Clock::time_point deadline,
                              std::chrono::milliseconds timeout) {
  size_t done = 0;
  while (done < size) {
    const ssize_t got = recv(fd_.get(), into + done, size - done, 0);
    if (got > 0) {
      done += static_cast<size_t>(got);
      continue;
    }
    if (got == 0) return fail("sync: receiver closed the connection");
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      const int ready = wait_ready(fd_.get(), POLLIN, deadline);
      if (ready == 0) return fail("sync: no reply from the receiver within " + describe(timeout));
      if (ready < 0) return fail("sync: poll: " + reason(errno));
      continue;
    }
    if (errno == ECONNRESET) return fail("sync: receiver closed the connection");
    return fail("sync: cannot read from the receiver: " + reason(errno));
  }
  return ok();
}

Status SyncClient::send_int(int32_t value, std::chrono::milliseconds timeout) {
  std::string bytes;
  sync_wire::append_int(bytes, value);
  return write_all(bytes, Clock::now() + timeout, timeout);
}

Expected<int32_t> SyncClient::read_int(std::chrono::milliseconds timeout) {
  char bytes[4];
  if (auto read = read_exact(bytes, sizeof bytes, Clock::now() + timeout, timeout); !read)
    return read.error();
  return sync_wire::decode_int(bytes);
}

Expected<int32_t> SyncClient::exchange(int32_t request, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  std::string bytes;
  sync_wire::append_int(bytes, request);
  if (auto sent = write_all(bytes, deadline, timeout); !sent) return sent.error();
  char reply[4];
  if (auto read = read_exact(reply, sizeof reply, deadline, timeout); !read) return read.error();
  return sync_wire::decode_int(reply);
}

Expected<bool> SyncClient::try_native_hello(std::chrono::milliseconds timeout) {
  auto reply = exchange(sync_code::kHello, timeout);
  if (!reply) return reply.error();
  if (*reply == sync_code::kHelloAck) return true;
  if (*reply >= 0) return false;  // NTTTCP-for-Linux took it as a cycle proposal
  return fail(fmt::format("sync: unexpected reply {} to xttcp's hello", *reply));
}

Status SyncClient::send_frame(std::string_view json, std::chrono::milliseconds timeout) {
  if (json.size() > sync_code::kMaxFrameBytes)
    return fail(fmt::format("sync: frame of {} bytes is over the {} MiB limit", json.size(),
                            sync_code::kMaxFrameBytes >> 20));
  std::string bytes;
  sync_wire::append_frame(bytes, json);
  return write_all(bytes, Clock::now() + timeout, timeout);
}

Expected<std::string> SyncClient::read_frame(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  char header[4];
  if (auto read = read_exact(header, sizeof header, deadline, timeout); !read) return read.error();
  const uint32_t length = sync_wire::decode_frame_length(header);
  if (length > sync_code::kMaxFrameBytes)
    return fail(fmt::format("sync: the receiver sent a frame of {} bytes, over the {} MiB limit",
                            length, sync_code::kMaxFrameBytes >> 20));
  std::string payload(length, '\0');
  if (auto read = read_exact(payload.data(), length, deadline, timeout); !read) return read.error();
  return payload;
}

}  // namespace xttcp
