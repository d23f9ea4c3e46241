// base/crypto.hh on Windows' BCrypt (Cryptography API: Next Generation), which Wine has too.
#include <windows.h>
// windows.h first: bcrypt.h needs its types.
#include <bcrypt.h>

#include <climits>

#include "base/crypto.hh"

namespace xttcp::crypto {

namespace {

bool succeeded(NTSTATUS status) { return status >= 0; }

}  // namespace

bool available() { return true; }

Expected<Digest> hmac_sha256(std::span<const uint8_t> key, std::span<const uint8_t> message) {
  if (key.size() > ULONG_MAX || message.size() > ULONG_MAX)
    return fail("HMAC-SHA256: the input is too long");
  BCRYPT_ALG_HANDLE algorithm = nullptr;
  if (!succeeded(BCryptOpenAlgorithmProvider(&algorithm, BCRYPT_SHA256_ALGORITHM, nullptr,
                                             BCRYPT_ALG_HANDLE_HMAC_FLAG)))
    return fail("HMAC-SHA256: BCryptOpenAlgorithmProvider failed");
  Digest digest{};
  BCRYPT_HASH_HANDLE hash = nullptr;
  bool done =
      succeeded(BCryptCreateHash(algorithm, &hash, nullptr, 0, const_cast<PUCHAR>(key.data()),
                                 static_cast<ULONG>(key.size()), 0)) &&
      succeeded(BCryptHashData(hash, const_cast<PUCHAR>(message.data()),
                               static_cast<ULONG>(message.size()), 0)) &&
      succeeded(BCryptFinishHash(hash, digest.data(), digest.size(), 0));
  if (hash != nullptr) BCryptDestroyHash(hash);
  BCryptCloseAlgorithmProvider(algorithm, 0);
  if (!done) return fail("HMAC-SHA256 failed (BCrypt)");
  return digest;
}

Status random_bytes(std::span<uint8_t> into) {
  if (into.size() > ULONG_MAX ||
      !succeeded(BCryptGenRandom(nullptr, into.data(), static_cast<ULONG>(into.size()),
                                 BCRYPT_USE_SYSTEM_PREFERRED_RNG)))
    return fail("cannot draw random bytes (BCryptGenRandom failed)");
  return ok();
}

}  // namespace xttcp::crypto
