// SyncInput: one sync connection's bytes read as requests and frames, without a socket.
#include "engine/control/sync_input.hh"

#include <gtest/gtest.h>

#include <string>

#include "engine/control/sync_auth.hh"
#include "engine/control/sync_codes.hh"
#include "engine/control/sync_wire.hh"

namespace xttcp {
namespace {

using Kind = SyncInput::Message::Kind;

std::string wire_int(int32_t value) {
  std::string bytes;
  sync_wire::append_int(bytes, value);
  return bytes;
}

std::string wire_frame(const std::string& json) {
  std::string bytes;
  sync_wire::append_frame(bytes, json);
  return bytes;
}

ReceiverSync::Outcome hello_outcome() {
  ReceiverSync::Outcome outcome;
  outcome.native_hello = true;
  return outcome;
}

ReceiverSync::Outcome result_may_follow() {
  ReceiverSync::Outcome outcome;
  outcome.result_may_follow = true;
  return outcome;
}

TEST(SyncInput, AnIntSplitOverReadsIsOneRequest) {
  SyncInput input(256);
  const std::string bytes = wire_int(sync_code::kQueryState) + wire_int(42);
  input.append(bytes.substr(0, 3));
  EXPECT_EQ(input.next().kind, Kind::none);
  EXPECT_EQ(input.buffered(), 3u);
  input.append(bytes.substr(3, 2));
  SyncInput::Message message = input.next();
  EXPECT_EQ(message.kind, Kind::request);
  EXPECT_EQ(message.value, sync_code::kQueryState);
  EXPECT_EQ(input.next().kind, Kind::none);
  EXPECT_EQ(input.buffered(), 1u);
  input.append(bytes.substr(5));
  message = input.next();
  EXPECT_EQ(message.kind, Kind::request);
  EXPECT_EQ(message.value, 42);
  EXPECT_EQ(input.next().kind, Kind::none);
  EXPECT_EQ(input.buffered(), 0u);
}

TEST(SyncInput, OneRequestTooManyClosesTheConnection) {
  SyncInput input(2);
  input.append(wire_int(-1) + wire_int(-1) + wire_int(-1));
  EXPECT_EQ(input.next().kind, Kind::request);
  EXPECT_EQ(input.next().kind, Kind::request);
  EXPECT_EQ(input.next().kind, Kind::too_many_requests);
}

TEST(SyncInput, HelloIsFollowedByItsFrameThenRequestsAgain) {
  SyncInput input(256);
  input.append(wire_int(sync_code::kHello));
  ASSERT_EQ(input.next().kind, Kind::request);
  EXPECT_TRUE(input.on_outcome(hello_outcome()));
  EXPECT_TRUE(input.native());
  const std::string frame = wire_frame(R"({"type":"hello"})") + wire_int(sync_code::kStart);
  input.append(frame.substr(0, 10));
  EXPECT_EQ(input.next().kind, Kind::none);  // the frame is not whole yet
  input.append(frame.substr(10));
  SyncInput::Message message = input.next();
  EXPECT_EQ(message.kind, Kind::hello_frame);
  EXPECT_EQ(message.payload, R"({"type":"hello"})");
  message = input.next();
  EXPECT_EQ(message.kind, Kind::request);
  EXPECT_EQ(message.value, sync_code::kStart);
}

TEST(SyncInput, AnOversizedHelloIsRefusedFromItsHeader) {
  SyncInput input(256);
  input.append(wire_int(sync_code::kHello));
  ASSERT_EQ(input.next().kind, Kind::request);
  ASSERT_TRUE(input.on_outcome(hello_outcome()));
  input.append(wire_int(static_cast<int32_t>(sync_code::kMaxHelloBytes + 1)));
  const SyncInput::Message message = input.next();
  EXPECT_EQ(message.kind, Kind::frame_too_large);
  EXPECT_EQ(message.length, sync_code::kMaxHelloBytes + 1);
  EXPECT_EQ(message.limit, sync_code::kMaxHelloBytes);
}

TEST(SyncInput, HelloTwiceIsRefused) {
  SyncInput input(256);
  EXPECT_TRUE(input.on_outcome(hello_outcome()));
  EXPECT_FALSE(input.on_outcome(hello_outcome()));
}

TEST(SyncInput, OnlyANativeSenderHandsInOneResult) {
  SyncInput legacy(256);
  legacy.on_outcome(result_may_follow());
  legacy.append(wire_int(5));
  EXPECT_EQ(legacy.next().kind, Kind::request);  // an int, not a frame header

  SyncInput native(256);
  native.on_outcome(hello_outcome());
  native.append(wire_frame("{}"));
  ASSERT_EQ(native.next().kind, Kind::hello_frame);
  EXPECT_TRUE(native.on_outcome(result_may_follow()));
  // A result may be larger than a hello, up to the frame limit.
  native.append(wire_int(static_cast<int32_t>(sync_code::kMaxHelloBytes + 1)));
  EXPECT_EQ(native.next().kind, Kind::none);
  EXPECT_EQ(native.buffered(), 4u);

  SyncInput second(256);
  second.on_outcome(hello_outcome());
  second.append(wire_frame("{}"));
  ASSERT_EQ(second.next().kind, Kind::hello_frame);
  second.on_outcome(result_may_follow());
  second.append(wire_frame(R"({"schema":"xttcp-result"})"));
  const SyncInput::Message result = second.next();
  EXPECT_EQ(result.kind, Kind::result_frame);
  EXPECT_EQ(result.payload, R"({"schema":"xttcp-result"})");
  EXPECT_TRUE(second.result_received());
  second.on_outcome(result_may_follow());  // another 'E': no second result
  second.append(wire_int(sync_code::kQueryState));
  EXPECT_EQ(second.next().kind, Kind::request);
}

TEST(SyncInput, AResultOverTheFrameLimitIsRefused) {
  SyncInput input(256);
  input.on_outcome(hello_outcome());
  input.append(wire_frame("{}"));
  ASSERT_EQ(input.next().kind, Kind::hello_frame);
  input.on_outcome(result_may_follow());
  input.append(wire_int(-1));  // 4 GiB - 1
  const SyncInput::Message message = input.next();
  EXPECT_EQ(message.kind, Kind::frame_too_large);
  EXPECT_EQ(message.length, 0xffffffffu);
  EXPECT_EQ(message.limit, sync_code::kMaxFrameBytes);
}

// One port: a connection's first 4 bytes say whether it is a data connection (a preamble) or a
// sync one; until they do, the server reads no more than a preamble, so no data is taken.
TEST(SyncInput, OnOnePortAPreambleMakesADataConnection) {
  SyncInput input(256, false, true);
  EXPECT_TRUE(input.undecided());
  EXPECT_EQ(input.readable_now(4096), 20u);
  input.append("XTA1");
  EXPECT_EQ(input.next().kind, Kind::none);
  EXPECT_EQ(input.readable_now(4096), 16u);  // the rest of the preamble, no data
  const std::string cookie(16, '\x5a');
  input.append(cookie);
  const SyncInput::Message message = input.next();
  EXPECT_EQ(message.kind, Kind::data_stream);
  EXPECT_EQ(message.payload, "XTA1" + cookie);
}

TEST(SyncInput, OnOnePortAReturnPreambleMakesADataConnectionTheReceiverSendsOn) {
  SyncInput input(256, false, true);
  const std::string preamble = "XTR1" + std::string(16, '\x33');
  input.append(preamble + "more");
  const SyncInput::Message message = input.next();
  EXPECT_EQ(message.kind, Kind::data_stream);
  EXPECT_EQ(message.payload, preamble);
  const auto* bytes = reinterpret_cast<const uint8_t*>(message.payload.data());
  const auto opening = sync_auth::opening_in({bytes, message.payload.size()});
  ASSERT_TRUE(opening);
  EXPECT_EQ(opening->direction, sync_auth::Direction::to_sender);
  EXPECT_EQ(opening->cookie[0], 0x33);
  // A data port takes only connections to the receiver.
  EXPECT_FALSE(sync_auth::cookie_in({bytes, message.payload.size()}));
}

TEST(SyncInput, OnOnePortAnythingElseIsASyncConnection) {
  SyncInput input(256, false, true);
  input.append(wire_int(sync_code::kQueryState));
  const SyncInput::Message message = input.next();
  EXPECT_EQ(message.kind, Kind::request);
  EXPECT_EQ(message.value, sync_code::kQueryState);
  EXPECT_FALSE(input.undecided());
  EXPECT_EQ(input.readable_now(4096), 4096u);
  // Later, the same bytes are just a (refused) cycle proposal, never a data connection.
  input.append("XTA1");
  EXPECT_EQ(input.next().kind, Kind::request);
}

TEST(SyncInput, WithTheKeyOnOnePortAPreambleStillComesFirst) {
  SyncInput data(256, true, true);
  data.append("XTA1" + std::string(16, '\x01'));
  EXPECT_EQ(data.next().kind, Kind::data_stream);
  SyncInput sync(256, true, true);
  sync.append(wire_int(sync_code::kHello));  // not AUTH_HELLO: refused as with the key alone
  EXPECT_EQ(sync.next().kind, Kind::not_authenticated);
}

TEST(SyncInput, OffOnePortAPreambleIsJustAnInt) {
  SyncInput input(256);
  EXPECT_FALSE(input.undecided());
  input.append("XTA1");
  EXPECT_EQ(input.next().kind, Kind::request);
}

}  // namespace
}  // namespace xttcp
