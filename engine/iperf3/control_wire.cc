#include "engine/iperf3/control_wire.hh"

#include <algorithm>
#include <fmt/format.h>

namespace xttcp::iperf3 {

Cookie make_cookie(std::span<const unsigned char, cookie_size - 1> random) {
  Cookie cookie{};
  for (std::size_t i = 0; i < random.size(); ++i)
    cookie[i] = static_cast<unsigned char>(cookie_alphabet[random[i] % cookie_alphabet.size()]);
  cookie[cookie_size - 1] = 0;
  return cookie;
}

namespace {

// The bytes up to the first NUL (all of them when there is none).
std::span<const unsigned char> up_to_nul(std::span<const unsigned char> bytes) {
  const auto nul = std::find(bytes.begin(), bytes.end(), 0);
  return bytes.first(static_cast<std::size_t>(nul - bytes.begin()));
}

}  // namespace

bool same_cookie(const Cookie& test, std::span<const unsigned char, cookie_size> received) {
  const auto a = up_to_nul(test);
  const auto b = up_to_nul(received);
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

std::string cookie_text(std::span<const unsigned char, cookie_size> cookie) {
  std::string text;
  for (unsigned char c : up_to_nul(cookie))
    text += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?';
  return text;
}

std::optional<State> state_of(unsigned char byte) {
  switch (static_cast<int8_t>(byte)) {
    case 1: return State::test_start;
    case 2: return State::test_running;
    case 4: return State::test_end;
    case 9: return State::param_exchange;
    case 10: return State::create_streams;
    case 11: return State::server_terminate;
    case 12: return State::client_terminate;
    case 13: return State::exchange_results;
    case 14: return State::display_results;
    case 16: return State::iperf_done;
    case -1: return State::access_denied;
    case -2: return State::server_error;
    default: return std::nullopt;
  }
}

unsigned char byte_of(State state) { return static_cast<unsigned char>(state); }

std::string state_bytes(std::initializer_list<State> states) {
  std::string bytes;
  for (State s : states) bytes += static_cast<char>(byte_of(s));
  return bytes;
}

std::string_view name_of(State state) {
  switch (state) {
    case State::test_start: return "TEST_START";
    case State::test_running: return "TEST_RUNNING";
    case State::test_end: return "TEST_END";
    case State::param_exchange: return "PARAM_EXCHANGE";
    case State::create_streams: return "CREATE_STREAMS";
    case State::server_terminate: return "SERVER_TERMINATE";
    case State::client_terminate: return "CLIENT_TERMINATE";
    case State::exchange_results: return "EXCHANGE_RESULTS";
    case State::display_results: return "DISPLAY_RESULTS";
    case State::iperf_done: return "IPERF_DONE";
    case State::access_denied: return "ACCESS_DENIED";
    case State::server_error: return "SERVER_ERROR";
  }
  return "?";
}

bool client_may_send(State state) {
  return state == State::test_start || state == State::test_end ||
         state == State::client_terminate || state == State::iperf_done;
}

bool server_may_send(State state) {
  return state != State::test_end && state != State::client_terminate;
}

namespace {

void put_be32(unsigned char* out, uint32_t value) {
  out[0] = static_cast<unsigned char>(value >> 24);
  out[1] = static_cast<unsigned char>(value >> 16);
  out[2] = static_cast<unsigned char>(value >> 8);
  out[3] = static_cast<unsigned char>(value);
}

uint32_t get_be32(const unsigned char* in) {
  return uint32_t{in[0]} << 24 | uint32_t{in[1]} << 16 | uint32_t{in[2]} << 8 | uint32_t{in[3]};
}

}  // namespace

std::array<unsigned char, server_error_size> server_error(int32_t iperf_error, int32_t os_errno) {
  std::array<unsigned char, server_error_size> bytes{};
  bytes[0] = byte_of(State::server_error);
  put_be32(&bytes[1], static_cast<uint32_t>(iperf_error));
  put_be32(&bytes[5], static_cast<uint32_t>(os_errno));
  return bytes;
}

ServerError read_server_error(std::span<const unsigned char, 8> codes) {
  return {static_cast<int32_t>(get_be32(&codes[0])), static_cast<int32_t>(get_be32(&codes[4]))};
}

std::array<unsigned char, length_size> message_length(uint32_t length) {
  std::array<unsigned char, length_size> bytes{};
  put_be32(bytes.data(), length);
  return bytes;
}

std::string frame_message(std::string_view json) {
  const auto length = message_length(static_cast<uint32_t>(json.size()));
  std::string framed(length.begin(), length.end());
  framed += json;
  return framed;
}

Expected<uint32_t> read_message_length(std::span<const unsigned char, length_size> bytes,
                                       uint32_t max_bytes, std::string_view what) {
  const uint32_t length = get_be32(bytes.data());
  if (length == 0) return fail(fmt::format("iperf3 {}: an empty message", what));
  if (length > max_bytes)
    return fail(fmt::format("iperf3 {}: {} bytes announced, over the limit of {}", what, length,
                            max_bytes));
  return length;
}

}  // namespace xttcp::iperf3
