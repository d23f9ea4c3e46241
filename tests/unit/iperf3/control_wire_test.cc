#include "engine/iperf3/control_wire.hh"

#include <gtest/gtest.h>

#include <numeric>
#include <string>

namespace xttcp::iperf3 {
namespace {

std::span<const unsigned char, cookie_size> bytes_of(const std::string& text) {
  return std::span<const unsigned char, cookie_size>(
      reinterpret_cast<const unsigned char*>(text.data()), cookie_size);
}

TEST(Cookie, ThirtySixCharactersOfTheAlphabetThenANul) {
  std::array<unsigned char, cookie_size - 1> random{};
  std::iota(random.begin(), random.end(), static_cast<unsigned char>(30));  // 30..65: wraps at 32
  const Cookie cookie = make_cookie(random);
  EXPECT_EQ(cookie_text(cookie), "67abcdefghijklmnopqrstuvwxyz234567ab");
  EXPECT_EQ(cookie[cookie_size - 1], 0);
}

TEST(Cookie, ComparedAsCStringsAs312Does) {
  // The capture's cookie (wire-tcp1.txt), and the same with junk after its NUL.
  const std::string sent("nuea64x6qpstrwzfcizsbpu5opitt34hq275\0", cookie_size);
  Cookie test{};
  std::copy_n(sent.begin(), cookie_size, test.begin());
  EXPECT_TRUE(same_cookie(test, bytes_of(sent)));
  std::string other = sent;
  other[5] = 'z';
  EXPECT_FALSE(same_cookie(test, bytes_of(other)));
  std::string no_nul(cookie_size, 'a');  // 37 characters, no NUL: not the 36 of the test
  EXPECT_FALSE(same_cookie(test, bytes_of(no_nul)));
  const std::string shorter("nuea64x6\0pstrwzfcizsbpu5opitt34hq275\0", cookie_size);
  EXPECT_FALSE(same_cookie(test, bytes_of(shorter)));
  EXPECT_EQ(cookie_text(bytes_of(shorter)), "nuea64x6");
}

TEST(State, EveryByteA312PeerSendsAndNoOther) {
  EXPECT_EQ(state_of(0x01), State::test_start);
  EXPECT_EQ(state_of(0x0e), State::display_results);
  EXPECT_EQ(state_of(0x10), State::iperf_done);
  EXPECT_EQ(state_of(0xff), State::access_denied);
  EXPECT_EQ(state_of(0xfe), State::server_error);
  for (unsigned char unused : {0x00, 0x03, 0x05, 0x06, 0x07, 0x08, 0x0f, 0x11, 0x7f, 0x80, 0xfd})
    EXPECT_FALSE(state_of(unused)) << int{unused};
  EXPECT_EQ(byte_of(State::server_error), 0xfe);
  EXPECT_EQ(name_of(State::exchange_results), "EXCHANGE_RESULTS");
}

TEST(State, WhoMaySendWhat) {
  for (State s : {State::test_start, State::test_end, State::client_terminate, State::iperf_done})
    EXPECT_TRUE(client_may_send(s)) << name_of(s);
  for (State s : {State::param_exchange, State::create_streams, State::exchange_results,
                  State::display_results, State::access_denied, State::server_error})
    EXPECT_FALSE(client_may_send(s)) << name_of(s);
  EXPECT_TRUE(server_may_send(State::test_running));
  EXPECT_FALSE(server_may_send(State::test_end));
  EXPECT_FALSE(server_may_send(State::client_terminate));
}

TEST(ServerError, TheCapturedBytes) {
  // wire-serr.txt: -w 400M over rmem_max: error 141 (IESETBUF2), errno 0.
  const auto bytes = server_error(141, 0);
  const std::array<unsigned char, server_error_size> captured{0xfe, 0, 0, 0, 0x8d, 0, 0, 0, 0};
  EXPECT_EQ(bytes, captured);
  const ServerError read = read_server_error(std::span<const unsigned char, 8>(&bytes[1], 8));
  EXPECT_EQ(read.iperf_error, 141);
  EXPECT_EQ(read.os_errno, 0);
  EXPECT_EQ(read_server_error(std::span<const unsigned char, 8>(&server_error(-1, 111)[1], 8))
                .iperf_error,
            -1);
}

TEST(MessageLength, BigEndianAndBounded) {
  const std::string framed = frame_message(R"({"a":1})");
  EXPECT_EQ(framed, std::string("\0\0\0\x07{\"a\":1}", 11));
  const auto length = message_length(123);
  EXPECT_EQ(*read_message_length(length, max_parameters_bytes, "parameters"), 123u);
  // 3.12 would allocate what a peer announces, up to 4 GiB.
  auto huge = read_message_length(message_length(0xffffffff), max_parameters_bytes, "parameters");
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().message,
            "iperf3 parameters: 4294967295 bytes announced, over the limit of 8192");
  auto empty = read_message_length(message_length(0), max_results_bytes, "results");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().message, "iperf3 results: an empty message");
  EXPECT_TRUE(read_message_length(message_length(max_results_bytes), max_results_bytes, "results"));
}

}  // namespace
}  // namespace xttcp::iperf3
