#include "engine/control/sync_input.hh"

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
