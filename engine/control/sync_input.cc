#include "engine/control/sync_input.hh"

#include "engine/control/sync_auth.hh"
#include "engine/control/sync_codes.hh"
#include "engine/control/sync_wire.hh"

namespace xttcp {

SyncInput::Message SyncInput::next() {
  Message message;
  const size_t left = in_.size() - used_;
  if (left < 4) {
    in_.erase(0, used_);  // what is left is the start of the next message
    used_ = 0;
    return message;
  }
  const char* at = in_.data() + used_;
  if (undecided_) {
    const auto* first = reinterpret_cast<const uint8_t*>(at);
    if (!sync_auth::opens_preamble(std::span<const uint8_t, 4>(first, 4))) {
      undecided_ = false;  // a sync connection: its messages from here on
    } else if (left < sync_auth::kPreambleBytes) {
      in_.erase(0, used_);
      used_ = 0;
      return message;
    } else {
      message.kind = Message::Kind::data_stream;
      message.payload.assign(at, sync_auth::kPreambleBytes);
      used_ += sync_auth::kPreambleBytes;
      return message;
    }
  }
  if (expect_ == Expect::auth_hello) return take_auth_hello(at, left);
  if (expect_ == Expect::auth_proof)
    return take_bytes(Message::Kind::auth_proof, sync_auth::kProofBytes);
  // A sender holding a key, at a receiver without one: its nonce belongs to this first message
  // (later, the same int is a proposal like any other).
  if (expect_ == Expect::integer && requests_ == 0 &&
      sync_wire::decode_int(at) == sync_code::kAuthHello)
    return take_auth_hello(at, left);
  if (expect_ == Expect::integer) {
    used_ += 4;
    if (++requests_ > max_requests_) {
      message.kind = Message::Kind::too_many_requests;
      return message;
    }
    message.kind = Message::Kind::request;
    message.value = sync_wire::decode_int(at);
    return message;
  }
  const uint32_t length = sync_wire::decode_frame_length(at);
  const uint32_t limit =
      expect_ == Expect::hello_frame ? sync_code::kMaxHelloBytes : sync_code::kMaxFrameBytes;
  if (length > limit) {
    message.kind = Message::Kind::frame_too_large;
    message.length = length;
    message.limit = limit;
    return message;
  }
  if (left - 4 < length) {
    in_.erase(0, used_);
    used_ = 0;
    return message;
  }
  message.kind =
      expect_ == Expect::hello_frame ? Message::Kind::hello_frame : Message::Kind::result_frame;
  message.payload.assign(at + 4, length);
  used_ += 4 + static_cast<size_t>(length);
  if (expect_ == Expect::result_frame) result_received_ = true;
  expect_ = Expect::integer;
  return message;
}

SyncInput::Message SyncInput::take_auth_hello(const char* at, size_t left) {
  Message message;
  const int32_t first = sync_wire::decode_int(at);
  if (first != sync_code::kAuthHello) {
    message.kind = Message::Kind::not_authenticated;
    message.value = first;
    used_ += 4;
    return message;
  }
  if (left < 4 + sync_auth::kNonceBytes) {
    in_.erase(0, used_);
    used_ = 0;
    return message;
  }
  ++requests_;
  used_ += 4;
  return take_bytes(Message::Kind::auth_hello, sync_auth::kNonceBytes);
}

SyncInput::Message SyncInput::take_bytes(Message::Kind kind, size_t count) {
  Message message;
  if (in_.size() - used_ < count) {
    in_.erase(0, used_);
    used_ = 0;
    return message;
  }
  message.kind = kind;
  message.payload.assign(in_.data() + used_, count);
  used_ += count;
  expect_ = Expect::integer;  // the caller moves on: challenged(), authenticated() or a close
  return message;
}

bool SyncInput::on_outcome(const ReceiverSync::Outcome& outcome) {
  if (outcome.native_hello) {
    if (native_) return false;
    native_ = true;
    expect_ = Expect::hello_frame;
  } else if (outcome.result_may_follow && native_ && !result_received_) {
    expect_ = Expect::result_frame;
  }
  return true;
}

}  // namespace xttcp
