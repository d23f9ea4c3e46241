// What one sync connection has sent the receiver, read from its bytes: NTTTCP's int requests
// and, on a native connection, the one frame the protocol expects next (the hello after HELLO,
// the result after the test's 'E'). Pure: no socket, clock or log. SyncServer moves the bytes
// and acts on the messages; this decides what the bytes are, within the listener's bounds
// (docs/hostile-peers.md). Every byte a sync client sends goes through here first, which is
// what tests/fuzz/sync_receiver.cc feeds.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/control/receiver_sync.hh"
#include "engine/control/sync_auth.hh"

namespace xttcp {

class SyncInput {
 public:
  struct Message {
    enum class Kind {
      none,               // no whole message yet: more bytes are needed
      request,            // an int (`value`) for ReceiverSync
      hello_frame,        // the native hello (`payload`)
      result_frame,       // the native result (`payload`)
      too_many_requests,  // one int more than the connection may send: close it
      frame_too_large,    // a frame header over its limit (`length`, `limit`): close it
      // --auth-key (sync_auth.hh): AUTH_HELLO and the sender's nonce (`payload`); its proof
      // (`payload`) once challenged; or, where a key is required, a first int that is not
      // AUTH_HELLO (`value`): close the connection.
      auth_hello,
      auth_proof,
      not_authenticated,
      // On one port (--one-port): the connection opened with a data preamble (sync_auth.hh),
      // the whole preamble in `payload` (sync_auth::opening_in): a data connection, not a sync
      // one. Nothing after it is read.
      data_stream,
    };
    Kind kind = Kind::none;
    int32_t value = 0;
    std::string payload;
    uint32_t length = 0;
    uint32_t limit = 0;
  };

  // `max_requests`: the ints one connection may send (SyncLimits::max_requests). With
  // `require_auth` (the receiver holds --auth-key) the connection must open with AUTH_HELLO.
  // With `takes_streams` (one port) it may instead open with a data preamble.
  explicit SyncInput(uint32_t max_requests, bool require_auth = false, bool takes_streams = false)
      : max_requests_(max_requests),
        expect_(require_auth ? Expect::auth_hello : Expect::integer),
        undecided_(takes_streams) {}

  // How many bytes the server may read now: while the connection may still be a data one, no
  // more than a preamble, so none of its data is taken (the worker that serves it counts it).
  size_t readable_now(size_t buffer) const {
    return undecided_ ? std::min(buffer, kUndecidedRead - (in_.size() - used_)) : buffer;
  }

  void append(std::string_view bytes) { in_.append(bytes); }
  // The next whole message, consumed. Call until `none` (or a reason to close), handing every
  // request's outcome to on_outcome() before the next call: it decides whether a frame follows.
  Message next();
  // After ReceiverSync answered a request of this connection: a HELLO makes the next message
  // its hello frame, a test sender's 'E' its result frame (once). False: the peer said HELLO
  // twice, and the connection must close.
  bool on_outcome(const ReceiverSync::Outcome& outcome);

  // The receiver sent its challenge: the sender's proof comes next.
  void challenged() { expect_ = Expect::auth_proof; }
  // The proof was right: the protocol proper begins.
  void authenticated() {
    authenticated_ = true;
    expect_ = Expect::integer;
  }
  bool is_authenticated() const { return authenticated_; }

  // One port: the connection has yet to say whether it is a sync or a data connection.
  bool undecided() const { return undecided_; }
  bool native() const { return native_; }
  bool result_received() const { return result_received_; }
  // Bytes held that do not form a whole message yet: at most one frame and its header.
  size_t buffered() const { return in_.size() - used_; }

 private:
  enum class Expect { auth_hello, auth_proof, integer, hello_frame, result_frame };
  Message take_auth_hello(const char* at, size_t left);
  Message take_bytes(Message::Kind kind, size_t count);

  static constexpr size_t kUndecidedRead = sync_auth::kPreambleBytes;
  uint32_t max_requests_;
  std::string in_;
  size_t used_ = 0;  // bytes of in_ already taken as messages
  Expect expect_ = Expect::integer;
  uint32_t requests_ = 0;
  bool native_ = false;
  bool result_received_ = false;
  bool authenticated_ = false;
  bool undecided_ = false;  // one port: the first 4 bytes have yet to say what it is
};

}  // namespace xttcp
