#include "engine/control/sync_auth.hh"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "base/read_file.hh"

namespace xttcp::sync_auth {

namespace {

// opens_preamble() reads them too.
constexpr char kMagic[4] = {'X', 'T', 'A', '1'};
constexpr char kReturnMagic[4] = {'X', 'T', 'R', '1'};

Expected<Proof> keyed(const Key& key, std::string_view label, const Nonce& sender,
                      const Nonce& receiver) {
  std::vector<uint8_t> message(label.begin(), label.end());
  message.insert(message.end(), sender.begin(), sender.end());
  message.insert(message.end(), receiver.begin(), receiver.end());
  return crypto::hmac_sha256(key.bytes, message);
}

}  // namespace

Expected<Key> load_key(const std::string& path) {
  const std::string where = "--auth-key: " + path;
  if (!crypto::available()) {
    auto why = crypto::hmac_sha256({}, {});
    return fail("--auth-key: " + why.error().message);
  }
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (error) return fail(fmt::format("{}: {}", where, error.message()));
  if (!std::filesystem::is_regular_file(status)) return fail(where + ": not a regular file");
#ifndef _WIN32
  using std::filesystem::perms;
  if ((status.permissions() & (perms::group_read | perms::others_read)) != perms::none)
    return fail(fmt::format("{}: other users may read it (mode {:o}): chmod 600 {}", where,
                            static_cast<unsigned>(status.permissions()), path));
#endif
  const auto size = std::filesystem::file_size(path, error);
  if (error) return fail(fmt::format("{}: {}", where, error.message()));
  if (size > kMaxKeyBytes + 2)
    return fail(
        fmt::format("{}: {} bytes, more than a key's {} (a key file holds the secret "
                    "alone, e.g. head -c 32 /dev/urandom | base64 > FILE)",
                    where, size, kMaxKeyBytes));
  auto text = read_whole_file(path);
  if (!text) return fail("--auth-key: " + text.error().message);
  std::string secret = std::move(*text);
  if (secret.ends_with("\r\n"))
    secret.resize(secret.size() - 2);
  else if (secret.ends_with('\n'))
    secret.pop_back();
  if (secret.size() < kMinKeyBytes || secret.size() > kMaxKeyBytes)
    return fail(
        fmt::format("{}: the key is {} bytes; it must be {} to {} (e.g. head -c 32 "
                    "/dev/urandom | base64 > FILE)",
                    where, secret.size(), kMinKeyBytes, kMaxKeyBytes));
  return Key{std::vector<uint8_t>(secret.begin(), secret.end())};
}

Expected<Nonce> new_nonce() {
  Nonce nonce{};
  if (Status drawn = crypto::random_bytes(nonce); !drawn) return drawn.error();
  return nonce;
}

Expected<Session> session(const Key& key, const Nonce& sender, const Nonce& receiver) {
  auto by_receiver = keyed(key, "xttcp-auth-1 receiver", sender, receiver);
  auto by_sender = keyed(key, "xttcp-auth-1 sender", sender, receiver);
  auto data = keyed(key, "xttcp-auth-1 data", sender, receiver);
  if (!by_receiver) return by_receiver.error();
  if (!by_sender) return by_sender.error();
  if (!data) return data.error();
  Session keys{*by_receiver, *by_sender, {}};
  std::copy_n(data->begin(), kCookieBytes, keys.data_cookie.begin());
  return keys;
}

Preamble data_preamble(const Cookie& cookie, Direction direction) {
  Preamble preamble{};
  std::memcpy(preamble.data(), direction == Direction::to_sender ? kReturnMagic : kMagic,
              sizeof kMagic);
  std::copy(cookie.begin(), cookie.end(), preamble.begin() + sizeof kMagic);
  return preamble;
}

std::optional<Opening> opening_in(std::span<const uint8_t> preamble) {
  if (preamble.size() != kPreambleBytes) return std::nullopt;
  Opening opening{};
  if (std::memcmp(preamble.data(), kMagic, sizeof kMagic) == 0)
    opening.direction = Direction::to_receiver;
  else if (std::memcmp(preamble.data(), kReturnMagic, sizeof kReturnMagic) == 0)
    opening.direction = Direction::to_sender;
  else
    return std::nullopt;
  std::copy_n(preamble.begin() + sizeof kMagic, kCookieBytes, opening.cookie.begin());
  return opening;
}

std::optional<Cookie> cookie_in(std::span<const uint8_t> preamble) {
  const std::optional<Opening> opening = opening_in(preamble);
  if (!opening || opening->direction != Direction::to_receiver) return std::nullopt;
  return opening->cookie;
}

}  // namespace xttcp::sync_auth
