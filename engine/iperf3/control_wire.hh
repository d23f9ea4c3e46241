// iperf3 3.12's control connection, byte by byte (tests/reference/iperf3-3.12/README.md,
// sections 1 to 3.1): the 37-byte cookie that opens it and every data connection, the one-byte
// states, the SERVER_ERROR code pair and the length of a JSON message. Pure: no socket here.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/status.hh"

namespace xttcp::iperf3 {

inline constexpr uint16_t default_port = 5201;

// 36 characters of cookie_alphabet, then a NUL.
inline constexpr std::size_t cookie_size = 37;
inline constexpr std::string_view cookie_alphabet = "abcdefghijklmnopqrstuvwxyz234567";
using Cookie = std::array<unsigned char, cookie_size>;

// A cookie from 36 random bytes (each picks a character by its value modulo 32, as 3.12 does).
Cookie make_cookie(std::span<const unsigned char, cookie_size - 1> random);

// Whether `received` (cookie_size bytes read from a data connection) is the test's cookie. As
// 3.12 compares them: as C strings, so nothing after the first NUL counts.
bool same_cookie(const Cookie& test, std::span<const unsigned char, cookie_size> received);

// The cookie as text (its 36 characters; up to the first NUL), for logs.
std::string cookie_text(std::span<const unsigned char, cookie_size> cookie);

// One signed byte on the control connection (3.12's src/iperf_api.h, "states").
enum class State : int8_t {
  test_start = 1,
  test_running = 2,
  test_end = 4,
  param_exchange = 9,
  create_streams = 10,
  server_terminate = 11,
  client_terminate = 12,
  exchange_results = 13,
  display_results = 14,
  iperf_done = 16,
  access_denied = -1,
  server_error = -2,
};

// The state a byte names, when it names one a 3.12 peer sends (3, 5 to 8 and 15 are never
// sent); nullopt for any other byte.
std::optional<State> state_of(unsigned char byte);
unsigned char byte_of(State state);
// The states as the bytes on the wire, in order.
std::string state_bytes(std::initializer_list<State> states);
std::string_view name_of(State state);  // "TEST_START", as iperf3 spells it

// Whom a state may come from: the client sends 1 (a no-op), 4, 12 and 16; the server the rest.
bool client_may_send(State state);
bool server_may_send(State state);

// SERVER_ERROR on the wire: 0xFE, then iperf3's error code and the OS errno, each a big-endian
// int32 (9 bytes).
inline constexpr std::size_t server_error_size = 9;
std::array<unsigned char, server_error_size> server_error(int32_t iperf_error, int32_t os_errno);
struct ServerError {
  int32_t iperf_error = 0;
  int32_t os_errno = 0;
};
// The two codes after the 0xFE (8 bytes).
ServerError read_server_error(std::span<const unsigned char, 8> codes);

// A JSON message is a big-endian uint32 length, then that many bytes of JSON text.
inline constexpr std::size_t length_size = 4;
std::array<unsigned char, length_size> message_length(uint32_t length);
std::string frame_message(std::string_view json);  // the length, then the text
// The length a message announces, if within `max_bytes` (3.12 has no bound: a peer could make
// it allocate 4 GiB); else one line naming the message and the bound. An empty message is no
// JSON either.
Expected<uint32_t> read_message_length(std::span<const unsigned char, length_size> bytes,
                                       uint32_t max_bytes, std::string_view what);

// What xttcp reads of each message at most: the parameters are a few hundred bytes (3.18 caps
// them at 8 KiB); results are about 150 bytes a stream, and a server's output when asked for
// (--get-server-output) about 150 bytes a stream a second (a test of 128 streams for a minute:
// about 1.2 MB).
inline constexpr uint32_t max_parameters_bytes = 8 * 1024;
inline constexpr uint32_t max_results_bytes = 64 * 1024;
inline constexpr uint32_t max_results_with_output_bytes = 4 * 1024 * 1024;

}  // namespace xttcp::iperf3
