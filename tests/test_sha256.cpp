#include <gtest/gtest.h>

#include "core/sha256.h"

using evotune::runtime::Sha256;
using evotune::runtime::sha256_hex;

// Test vectors from FIPS 180-4 / NIST CSRC examples.
TEST(Sha256, MatchesPublishedVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, IncrementalUpdatesEqualOneShot) {
  std::string text(777, 'x');
  for (std::size_t i = 0; i < text.size(); ++i) text[i] = static_cast<char>('a' + i % 26);
  Sha256 h;
  for (std::size_t i = 0; i < text.size(); i += 61) h.update(std::string_view(text).substr(i, 61));
  EXPECT_EQ(h.hex_digest(), sha256_hex(text));
}

TEST(Sha256, FieldsAreLengthPrefixed) {
  EXPECT_NE(Sha256().field("ab").field("c").hex_digest(), Sha256().field("a").field("bc").hex_digest());
}
