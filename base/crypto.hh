// Keyed hashing and randomness for --auth-key, from each OS's well-kept library: OpenSSL's
// libcrypto on Linux (crypto_openssl.cc), BCrypt on Windows (crypto_windows.cc); a build with
// neither says so (crypto_none.cc). Nothing here is home-made cryptography.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "base/status.hh"

namespace xttcp::crypto {

using Digest = std::array<uint8_t, 32>;

// False in a build without a cryptography library: then every call fails, saying so.
bool available();

// HMAC-SHA256 (RFC 2104, FIPS 180-4) of `message` under `key`.
Expected<Digest> hmac_sha256(std::span<const uint8_t> key, std::span<const uint8_t> message);

// Fills `into` from the OS's cryptographically secure generator.
Status random_bytes(std::span<uint8_t> into);

// Whether a and b hold the same bytes, in a time that does not depend on where they differ.
bool equal_in_constant_time(std::span<const uint8_t> a, std::span<const uint8_t> b);

}  // namespace xttcp::crypto
