// base/crypto.hh against RFC 4231's HMAC-SHA256 test vectors (on Linux: libcrypto; under Wine:
// BCrypt), and the random and comparison helpers.
#include "base/crypto.hh"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace xttcp::crypto {
namespace {

std::span<const uint8_t> bytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

std::string hex(const Digest& digest) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string text;
  for (uint8_t byte : digest) {
    text += digits[byte >> 4];
    text += digits[byte & 15];
  }
  return text;
}

TEST(Crypto, HmacSha256Rfc4231Case2) {
  if (!available()) GTEST_SKIP() << "this build has no cryptography library";
  auto digest = hmac_sha256(bytes("Jefe"), bytes("what do ya want for nothing?"));
  ASSERT_TRUE(digest) << digest.error().message;
  EXPECT_EQ(hex(*digest), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(Crypto, HmacSha256Rfc4231Case6KeyLongerThanABlock) {
  if (!available()) GTEST_SKIP() << "this build has no cryptography library";
  const std::string key(131, '\xaa');
  auto digest =
      hmac_sha256(bytes(key), bytes("Test Using Larger Than Block-Size Key - Hash Key First"));
  ASSERT_TRUE(digest) << digest.error().message;
  EXPECT_EQ(hex(*digest), "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(Crypto, RandomBytesDiffer) {
  if (!available()) GTEST_SKIP() << "this build has no cryptography library";
  std::vector<uint8_t> a(32), b(32);
  ASSERT_TRUE(random_bytes(a));
  ASSERT_TRUE(random_bytes(b));
  EXPECT_NE(a, b);  // 2^-256
}

TEST(Crypto, EqualInConstantTime) {
  EXPECT_TRUE(equal_in_constant_time(bytes("abc"), bytes("abc")));
  EXPECT_FALSE(equal_in_constant_time(bytes("abc"), bytes("abd")));
  EXPECT_FALSE(equal_in_constant_time(bytes("abc"), bytes("ab")));
  EXPECT_TRUE(equal_in_constant_time(bytes(""), bytes("")));
}

TEST(Crypto, WithoutALibraryEveryCallSaysWhy) {
  if (available()) GTEST_SKIP() << "this build has a cryptography library";
  auto digest = hmac_sha256(bytes("k"), bytes("m"));
  ASSERT_FALSE(digest);
  EXPECT_NE(digest.error().message.find("no cryptography library"), std::string::npos);
}

}  // namespace
}  // namespace xttcp::crypto
