#include "engine/control/sync_client.hh"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "engine/control/sync_codes.hh"
#include "engine/control/sync_wire.hh"
#include "engine/net/socket_io.hh"
#include "engine/net/socket_setup.hh"

namespace xttcp {

namespace {

std::string describe(std::chrono::milliseconds timeout) {
  const auto ms = timeout.count();
  if (ms % 1000 == 0) return fmt::format("{} s", ms / 1000);
  if (ms > 1000) return fmt::format("{:.1f} s", static_cast<double>(ms) / 1000.0);
  return fmt::format("{} ms", ms);
}

constexpr std::chrono::milliseconds kInterruptCheck{100};

// wait_socket in slices, so Ctrl+C (`interrupted`) ends the wait within one: > 0 ready, 0 the
// deadline passed, < 0 an error, -2 interrupted.
constexpr int kInterrupted = -2;
int wait_watched(NativeSocket socket, WaitFor what, std::chrono::steady_clock::time_point deadline,
                 const std::atomic<bool>* interrupted) {
  for (;;) {
    if (interrupted != nullptr && interrupted->load()) return kInterrupted;
    const auto slice = std::min(deadline, std::chrono::steady_clock::now() + kInterruptCheck);
    const int ready = wait_socket(socket, what, slice);
    if (ready != 0 || slice >= deadline) return ready;
  }
}

}  // namespace

namespace {

// One connect attempt, bounded by `deadline`: the socket, or why not; `refused` says the
// receiver is not listening (yet).
Expected<UniqueSocket> connect_once(const SocketAddress& receiver,
                                    const std::optional<SocketAddress>& source,
                                    std::chrono::steady_clock::time_point deadline,
                                    std::chrono::milliseconds timeout, bool* refused,
                                    const std::atomic<bool>* interrupted) {
  const std::string who = "sync: receiver " + receiver.to_string();
  *refused = false;
  auto opened = open_tcp_socket(receiver.family());
  if (!opened) return fail("sync: cannot create a socket: " + opened.error().message);
  UniqueSocket fd = std::move(*opened);
  set_no_delay(fd.get());

  if (source) {
    // Like NTTTCP's -a: keep the sync traffic on that interface (Linux, with CAP_NET_RAW;
    // without it the bind below still selects the address, which is what matters).
    if (Status bound = bind_to_interface_of(fd.get(), *source); !bound)
      return fail("sync: " + bound.error().message);
    if (Status bound = bind_source_address(fd.get(), *source); !bound)
      return fail(fmt::format("sync: cannot bind the sync connection to source {}: {}",
                              source->to_string(), bound.error().message));
  }

  int err = 0;
  if (::connect(fd.get(), receiver.get(), receiver.length) != 0) {
    err = last_socket_error();
    const SocketError kind = classify_socket_error(err);
    if (kind == SocketError::in_progress || kind == SocketError::would_block) {
      const int ready = wait_watched(fd.get(), WaitFor::write, deadline, interrupted);
      if (ready == kInterrupted) return fail("interrupted while connecting to " + who.substr(6));
      if (ready == 0)
        return fail(
            fmt::format("{} did not answer within {} (is it reachable?)", who, describe(timeout)));
      if (ready < 0) return fail("sync: poll: " + socket_error_text(last_socket_error()));
      err = pending_socket_error(fd.get());
    }
  }
  if (err != 0 && classify_socket_error(err) == SocketError::refused) {
    *refused = true;
    return fail(who + " refused the connection (is the receiver running?)");
  }
  if (err != 0)
    return fail("sync: cannot connect to " + who.substr(6) + ": " + socket_error_text(err));
  return fd;
}

}  // namespace

Expected<SyncClient> SyncClient::connect(const SocketAddress& receiver,
                                         const std::optional<SocketAddress>& source,
                                         std::chrono::milliseconds timeout, SyncWatch watch) {
  // A refused connect means the receiver is not listening yet (started just after this sender):
  // tried again every 100 ms until the timeout, as the data connections are. The first refusal
  // is said at once, so a wrong port or a receiver not started does not cost silent seconds.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (int tries = 1;; ++tries) {
    bool refused = false;
    auto connected = connect_once(receiver, source, deadline, timeout, &refused, watch.interrupted);
    if (connected) return SyncClient(std::move(*connected), receiver, watch.interrupted);
    if (refused && tries == 1 && watch.on_first_refusal)
      watch.on_first_refusal(fmt::format(
          "sync: {} refused the connection: nothing listens there yet (the receiver's sync "
          "port is its -p minus 1); trying again every {} ms for {} (--connect-timeout)",
          receiver.to_string(), refused_connect_retry_pause.count(), describe(timeout)));
    if (!refused || std::chrono::steady_clock::now() + refused_connect_retry_pause >= deadline) {
      if (refused && tries > 1)
        return fail(fmt::format("{} ({} tries in {}, --connect-timeout)", connected.error().message,
                                tries, describe(timeout)));
      return connected.error();
    }
    // The pause between tries, in the same slices as every wait.
    const auto resume = std::chrono::steady_clock::now() + refused_connect_retry_pause;
    while (std::chrono::steady_clock::now() < resume) {
      if (watch.interrupted != nullptr && watch.interrupted->load())
        return fail("interrupted while waiting for the receiver " + receiver.to_string());
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
          resume - std::chrono::steady_clock::now(), std::chrono::milliseconds(20)));
    }
  }
}

Status SyncClient::write_all(std::string_view bytes, Clock::time_point deadline,
                             std::chrono::milliseconds timeout) {
  size_t done = 0;
  while (done < bytes.size()) {
    const SocketTransfer sent = send_some(fd_.get(), bytes.data() + done, bytes.size() - done);
    if (sent.bytes > 0) {
      done += static_cast<size_t>(sent.bytes);
      continue;
    }
    const SocketError kind = classify_socket_error(sent.error);
    if (sent.bytes < 0 && kind == SocketError::interrupted) continue;
    if (sent.bytes < 0 && kind == SocketError::would_block) {
      const int ready = wait_watched(fd_.get(), WaitFor::write, deadline, interrupted_);
      if (ready == kInterrupted) return fail("interrupted while sending to the receiver");
      if (ready == 0) return fail("sync: the receiver took nothing within " + describe(timeout));
      if (ready < 0) return fail("sync: poll: " + socket_error_text(last_socket_error()));
      continue;
    }
    if (kind == SocketError::reset) return fail("sync: receiver closed the connection");
    return fail("sync: cannot send to the receiver: " + socket_error_text(sent.error));
  }
  return ok();
}

Status SyncClient::read_exact(char* into, size_t size, Clock::time_point deadline,
                              std::chrono::milliseconds timeout) {
  size_t done = 0;
  while (done < size) {
    const SocketTransfer got = receive_some(fd_.get(), into + done, size - done);
    if (got.bytes > 0) {
      done += static_cast<size_t>(got.bytes);
      continue;
    }
    if (got.bytes == 0) return fail("sync: receiver closed the connection");
    const SocketError kind = classify_socket_error(got.error);
    if (kind == SocketError::interrupted) continue;
    if (kind == SocketError::would_block) {
      const int ready = wait_watched(fd_.get(), WaitFor::read, deadline, interrupted_);
      if (ready == kInterrupted) return fail("interrupted while waiting for the receiver's reply");
      if (ready == 0) return fail("sync: no reply from the receiver within " + describe(timeout));
      if (ready < 0) return fail("sync: poll: " + socket_error_text(last_socket_error()));
      continue;
    }
    if (kind == SocketError::reset) return fail("sync: receiver closed the connection");
    return fail("sync: cannot read from the receiver: " + socket_error_text(got.error));
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

Expected<sync_auth::Cookie> SyncClient::authenticate(const sync_auth::Key& key,
                                                     std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  auto nonce = sync_auth::new_nonce();
  if (!nonce) return fail("sync: --auth-key: " + nonce.error().message);
  std::string hello;
  sync_wire::append_int(hello, sync_code::kAuthHello);
  hello.append(reinterpret_cast<const char*>(nonce->data()), nonce->size());
  if (auto sent = write_all(hello, deadline, timeout); !sent) return sent.error();
  char reply[4];
  if (auto read = read_exact(reply, sizeof reply, deadline, timeout); !read)
    return fail(
        "sync: --auth-key: the receiver closed the connection before authenticating "
        "(" +
        read.error().message + ")");
  const int32_t answer = sync_wire::decode_int(reply);
  if (answer == sync_code::kAuthNotHere)
    return fail(
        "sync: --auth-key: the receiver has no --auth-key; give it the same key file, "
        "or drop --auth-key here");
  if (answer != sync_code::kAuthChallenge)
    return fail(fmt::format(
        "sync: --auth-key: the receiver did not authenticate (it answered {}): it is not xttcp, "
        "and an NTTTCP-compatible receiver cannot; drop --auth-key to test against it",
        answer));
  sync_auth::Nonce theirs{};
  sync_auth::Proof their_proof{};
  if (auto read =
          read_exact(reinterpret_cast<char*>(theirs.data()), theirs.size(), deadline, timeout);
      !read)
    return read.error();
  if (auto read = read_exact(reinterpret_cast<char*>(their_proof.data()), their_proof.size(),
                             deadline, timeout);
      !read)
    return read.error();
  auto session = sync_auth::session(key, *nonce, theirs);
  if (!session) return fail("sync: --auth-key: " + session.error().message);
  if (!crypto::equal_in_constant_time(their_proof, session->receiver_proof))
    return fail("sync: --auth-key: the receiver's proof is wrong: it holds another key");
  std::string proof(reinterpret_cast<const char*>(session->sender_proof.data()),
                    session->sender_proof.size());
  if (auto sent = write_all(proof, deadline, timeout); !sent) return sent.error();
  if (auto read = read_exact(reply, sizeof reply, deadline, timeout); !read)
    return fail("sync: --auth-key: the receiver refused our proof (" + read.error().message + ")");
  if (sync_wire::decode_int(reply) != sync_code::kAuthOk)
    return fail(fmt::format("sync: --auth-key: unexpected reply {} to our proof",
                            sync_wire::decode_int(reply)));
  return session->data_cookie;
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

Expected<std::string> SyncClient::read_frame(std::chrono::milliseconds timeout,
                                             uint32_t max_bytes) {
  const auto deadline = Clock::now() + timeout;
  char header[4];
  if (auto read = read_exact(header, sizeof header, deadline, timeout); !read) return read.error();
  const uint32_t length = sync_wire::decode_frame_length(header);
  if (length > max_bytes)
    return fail(fmt::format("sync: the receiver sent a frame of {} bytes, over the {} KiB limit",
                            length, max_bytes >> 10));
  std::string payload(length, '\0');
  if (auto read = read_exact(payload.data(), length, deadline, timeout); !read) return read.error();
  return payload;
}

}  // namespace xttcp
