#pragma once
// SHA-256 for content keys (cubin cache, config hashes). Collisions must be out of the question for a
// cache key, so a 64-bit hash is not enough; this is the FIPS 180-4 algorithm, checked against its
// published test vectors in tests/test_sha256.cpp.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace evotune::runtime {

class Sha256 {
 public:
  Sha256();
  Sha256& update(std::string_view bytes);
  // Adds a length-prefixed field so that ("ab","c") and ("a","bc") hash differently.
  Sha256& field(std::string_view bytes);
  std::array<std::uint8_t, 32> digest();
  std::string hex_digest();

 private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

std::string sha256_hex(std::string_view bytes);

}  // namespace evotune::runtime
