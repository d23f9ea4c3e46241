// The sender's end of the sync connection: a blocking-style client where every call is
// bounded by a timeout (engine/net/socket_io waits), so a silent receiver never hangs the sender.
// Errors are one line: "sync: no reply from the receiver within 10 s".
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.hh"
#include "engine/control/sync_auth.hh"
#include "engine/control/sync_codes.hh"
#include "engine/net/address.hh"
#include "engine/net/unique_socket.hh"

namespace xttcp {

// What a sync connect may tell its caller while it waits, and what ends every wait at once.
struct SyncWatch {
  // Ctrl+C: every wait of the client (connect, replies, frames) ends within 100 ms with
  // "interrupted" when it turns true. Null: none.
  const std::atomic<bool>* interrupted = nullptr;
  // The first refused connect (nothing listens there yet), said at once: the retries that
  // follow are silent until the timeout.
  std::function<void(const std::string& line)> on_first_refusal;
};

class SyncClient {
 public:
  // Connects within `timeout`. `source` (-a) binds the local end and, when it is a specific
  // address, SO_BINDTODEVICE to the interface owning it (EPERM without CAP_NET_RAW is ignored).
  static Expected<SyncClient> connect(const SocketAddress& receiver,
                                      const std::optional<SocketAddress>& source,
                                      std::chrono::milliseconds timeout, SyncWatch watch = {});

  // Sends one int and reads one reply, both within `timeout`.
  Expected<int32_t> exchange(int32_t request, std::chrono::milliseconds timeout);
  Status send_int(int32_t value, std::chrono::milliseconds timeout);
  // Reads one int, e.g. the 'R' that follows a 'W'.
  Expected<int32_t> read_int(std::chrono::milliseconds timeout);
  // --auth-key, first thing on the connection (sync_auth.hh): proves this end holds `key` and
  // checks that the receiver does; returns the session's data cookie. Errors are one line
  // saying which end lacks the key or holds another.
  Expected<sync_auth::Cookie> authenticate(const sync_auth::Key& key,
                                           std::chrono::milliseconds timeout);
  // Sends HELLO: true if the receiver is xttcp (HELLO_ACK; the connection is native from now
  // on), false if it is NTTTCP-for-Linux (any reply >= 0, which its later proposal overwrites).
  Expected<bool> try_native_hello(std::chrono::milliseconds timeout);
  Status send_frame(std::string_view json,
                    std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // One frame of at most `max_bytes` (a hello: sync_code::kMaxHelloBytes).
  Expected<std::string> read_frame(std::chrono::milliseconds timeout,
                                   uint32_t max_bytes = sync_code::kMaxFrameBytes);

  // Once the test runs, Ctrl+C ends its window and the results are still exchanged: the waits
  // that follow are bounded by their timeouts alone.
  void stop_watching_interrupt() { interrupted_ = nullptr; }

  NativeSocket fd() const { return fd_.get(); }
  const SocketAddress& receiver() const { return receiver_; }

  SyncClient(SyncClient&&) noexcept = default;
  SyncClient& operator=(SyncClient&&) noexcept = default;
  SyncClient(const SyncClient&) = delete;
  SyncClient& operator=(const SyncClient&) = delete;

 private:
  using Clock = std::chrono::steady_clock;
  SyncClient(UniqueSocket fd, SocketAddress receiver, const std::atomic<bool>* interrupted)
      : fd_(std::move(fd)), receiver_(receiver), interrupted_(interrupted) {}

  Status write_all(std::string_view bytes, Clock::time_point deadline,
                   std::chrono::milliseconds timeout);
  Status read_exact(char* into, size_t size, Clock::time_point deadline,
                    std::chrono::milliseconds timeout);

  UniqueSocket fd_;
  SocketAddress receiver_;
  const std::atomic<bool>* interrupted_ = nullptr;
};

}  // namespace xttcp
