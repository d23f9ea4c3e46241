// base/crypto.hh on OpenSSL's libcrypto (Debian's libssl-dev).
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <climits>

#include "base/crypto.hh"

namespace xttcp::crypto {

bool available() { return true; }

Expected<Digest> hmac_sha256(std::span<const uint8_t> key, std::span<const uint8_t> message) {
  if (key.size() > INT_MAX) return fail("HMAC-SHA256: the key is too long");
  Digest digest{};
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), message.data(), message.size(),
           digest.data(), &length) == nullptr ||
      length != digest.size())
    return fail("HMAC-SHA256 failed (libcrypto)");
  return digest;
}

Status random_bytes(std::span<uint8_t> into) {
  if (into.size() > INT_MAX || RAND_bytes(into.data(), static_cast<int>(into.size())) != 1)
    return fail("cannot draw random bytes (libcrypto's RAND_bytes failed)");
  return ok();
}

}  // namespace xttcp::crypto
