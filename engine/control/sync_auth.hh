// --auth-key: a shared secret both ends hold, proven on the native sync connection before
// anything else, with HMAC-SHA256 (base/crypto.hh). The wire, from the sender's connect:
//   sender   -> AUTH_HELLO (int32), its nonce Nc (32 bytes)
//   receiver -> AUTH_CHALLENGE (int32), its nonce Ns (32 bytes),
//               HMAC(K, "xttcp-auth-1 receiver" Nc Ns) (32 bytes)
//   sender   -> HMAC(K, "xttcp-auth-1 sender" Nc Ns) (32 bytes)
//   receiver -> AUTH_OK (int32), or it closes the connection (a wrong proof)
// and then HELLO, as on any native connection. Each end proves it holds K over both ends'
// fresh nonces, under its own label: no proof can be replayed on another connection or
// reflected back. Each TCP data connection of the session then begins with a preamble, "XTA1"
// and the session's cookie, the first 16 bytes of HMAC(K, "xttcp-auth-1 data" Nc Ns), which
// is never sent on the sync connection: a receiver counts a data connection only if its
// preamble names a session authenticated now. A receiver without a key answers AUTH_HELLO with
// AUTH_NOT_HERE; NTTTCP-for-Linux takes it for a cycle proposal and answers a number >= 0.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/crypto.hh"
#include "base/status.hh"

namespace xttcp::sync_auth {

inline constexpr size_t kNonceBytes = 32;
inline constexpr size_t kProofBytes = 32;
inline constexpr size_t kCookieBytes = 16;
inline constexpr size_t kPreambleBytes = 4 + kCookieBytes;
// A key file's size: enough to be unguessable, small enough to read at once.
inline constexpr size_t kMinKeyBytes = 16;
inline constexpr size_t kMaxKeyBytes = 4096;

using Nonce = std::array<uint8_t, kNonceBytes>;
using Proof = crypto::Digest;
using Cookie = std::array<uint8_t, kCookieBytes>;
using Preamble = std::array<uint8_t, kPreambleBytes>;

struct Key {
  std::vector<uint8_t> bytes;
};

// The key held in `path`: its bytes, a trailing newline dropped, 16 to 4096 bytes; a file that
// other users may read is refused (Linux). Errors are one line naming --auth-key and the rule.
Expected<Key> load_key(const std::string& path);

Expected<Nonce> new_nonce();

// What each end of one connection computes from the key and both nonces.
struct Session {
  Proof receiver_proof;
  Proof sender_proof;
  Cookie data_cookie;
};
Expected<Session> session(const Key& key, const Nonce& sender, const Nonce& receiver);

// Which way a data connection's bytes go, said by its preamble's magic: to the receiver ("XTA1",
// every data connection but these), or back to the sender that made it ("XTR1": --reverse and
// --bidir on one port, where the receiver sends on it).
enum class Direction : uint8_t { to_receiver, to_sender };

// The first bytes of a data connection of `cookie`'s session.
Preamble data_preamble(const Cookie& cookie, Direction direction = Direction::to_receiver);
// The cookie a data connection to the receiver names with its first bytes, if they are such a
// preamble at all (a data port takes no other).
std::optional<Cookie> cookie_in(std::span<const uint8_t> preamble);
// One port: what a preamble says, either way.
struct Opening {
  Cookie cookie;
  Direction direction;
};
std::optional<Opening> opening_in(std::span<const uint8_t> preamble);
// Whether `first` (a connection's first 4 bytes) begins a data preamble, either way: on one
// port (--one-port) what tells a data connection from a sync connection, whose first int is
// never one of these (it would propose a cycle of 47 years).
inline bool opens_preamble(std::span<const uint8_t, 4> first) {
  return first[0] == 'X' && first[1] == 'T' && (first[2] == 'A' || first[2] == 'R') &&
         first[3] == '1';
}

}  // namespace xttcp::sync_auth
