// base/crypto.hh in a build without a cryptography library (meson -Dauth=disabled, or libcrypto
// not found): --auth-key is refused with this reason.
#include "base/crypto.hh"

namespace xttcp::crypto {

namespace {

constexpr const char* kMissing =
    "this build has no cryptography library (OpenSSL's libcrypto was not found when it was "
    "configured; scripts/install-deps.sh installs libssl-dev)";

}  // namespace

bool available() { return false; }

Expected<Digest> hmac_sha256(std::span<const uint8_t>, std::span<const uint8_t>) {
  return fail(kMissing);
}

Status random_bytes(std::span<uint8_t>) { return fail(kMissing); }

}  // namespace xttcp::crypto
