// NTTTCP-for-Linux's sync protocol (port base-1) plus xttcp's native extension: the numbers
// on the wire. Every message is one int32 in network byte order, one request and one reply
// (docs/architecture.md); a native connection also carries frames (see sync_wire.hh).
#pragma once

#include <cstdint>
#include <string>

namespace xttcp::sync_code {

// Requests, and the replies that reuse them. Character codes sent as ints.
inline constexpr int32_t kQueryState = 'X';       // 88: reply is the receiver's state
inline constexpr int32_t kStart = 'R';            // 82: request start; reply 'R' = run
inline constexpr int32_t kLastClientStart = 'L';  // 76: -L sender: start every parked sender
inline constexpr int32_t kEarlyExit = 'E';        // 69: sender stopped; also the "error" reply
inline constexpr int32_t kPleaseWait = 'W';       // 87: reply: parked until the '-L' sender

// Receiver states (replies to 'X' and 'E').
inline constexpr int32_t kStateNotStarted = 11;
inline constexpr int32_t kStateRunning = 12;
inline constexpr int32_t kStateFinished = 13;

// xttcp's native extension. Negative on purpose: NTTTCP-for-Linux takes HELLO as a cycle
// proposal, answers a value >= 0 and the sender's real proposal overwrites it.
inline constexpr int32_t kHello = static_cast<int32_t>(0xC0DE7801u);
inline constexpr int32_t kHelloAck = static_cast<int32_t>(0xC0DE7802u);
// --auth-key (engine/control/sync_auth.hh): the sender's first int when it holds a key, the
// receiver's replies. NTTTCP takes AUTH_HELLO for a cycle proposal and answers a number >= 0.
inline constexpr int32_t kAuthHello = static_cast<int32_t>(0xC0DE7803u);
inline constexpr int32_t kAuthChallenge = static_cast<int32_t>(0xC0DE7804u);
inline constexpr int32_t kAuthOk = static_cast<int32_t>(0xC0DE7805u);
inline constexpr int32_t kAuthNotHere = static_cast<int32_t>(0xC0DE7806u);  // receiver has no key

// Largest frame (JSON) either side accepts: a result (thousands of connections' statistics),
// and a hello (the spec).
inline constexpr uint32_t kMaxFrameBytes = 16u * 1024 * 1024;
inline constexpr uint32_t kMaxHelloBytes = 1024 * 1024;

// The longest test cycle either side agrees to: W + t + C, each at most a year as on the
// command line.
inline constexpr uint32_t kMaxCycleSeconds = 3u * 365 * 24 * 3600;

// True for the ints a receiver reads as a command rather than a cycle proposal
// ('W' included: it is a reply code and must never be proposed either).
constexpr bool is_command(int32_t value) {
  return value == kQueryState || value == kStart || value == kLastClientStart ||
         value == kEarlyExit || value == kPleaseWait || value == kHello || value == kAuthHello;
}

}  // namespace xttcp::sync_code

namespace xttcp {

// The cycle (W+t+C seconds) a sender proposes for `cycle_s`: the same value unless it would be
// read as a command (69 'E', 76 'L', 82 'R', 87 'W', 88 'X': commands and cycles share one int
// space, and the original receiver takes a cycle of 88 s for 'X') or does not fit a positive int32;
// then the next safe value, with a one-line explanation in *note (left alone otherwise).
uint32_t safe_cycle_proposal(uint32_t cycle_s, std::string* note);

}  // namespace xttcp
