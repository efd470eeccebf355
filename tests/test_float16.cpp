#include <gtest/gtest.h>

#include <cmath>

#include "runtime/float16.h"

using namespace evotune::runtime;

TEST(Float16, EveryHalfRoundTripsThroughFloat) {
  for (std::uint32_t bits = 0; bits < 65536; ++bits) {
    auto h = static_cast<std::uint16_t>(bits);
    float f = half_bits_to_float(h);
    if (std::isnan(f)) continue;  // NaN payloads need not survive
    ASSERT_EQ(float_to_half_bits(f), h) << "bits " << bits;
  }
}

TEST(Float16, RoundsToNearestEven) {
  EXPECT_EQ(half_bits_to_float(float_to_half_bits(1.0f + 1.0f / 2048)), 1.0f);  // tie -> even (down)
  EXPECT_EQ(half_bits_to_float(float_to_half_bits(1.0f + 3.0f / 2048)), 1.0f + 4.0f / 2048);  // tie -> even (up)
  EXPECT_EQ(half_bits_to_float(float_to_half_bits(65504.0f)), 65504.0f);
  EXPECT_TRUE(std::isinf(half_bits_to_float(float_to_half_bits(65520.0f))));
  EXPECT_TRUE(std::isnan(half_bits_to_float(float_to_half_bits(NAN))));
  EXPECT_EQ(half_bits_to_float(float_to_half_bits(5.9604645e-8f)), 5.9604645e-8f);  // smallest subnormal
  EXPECT_EQ(half_bits_to_float(0xFFFF) != half_bits_to_float(0xFFFF), true);         // poison pattern is NaN
}

TEST(Bfloat16, RoundTripsAndRounds) {
  for (std::uint32_t bits = 0; bits < 65536; ++bits) {
    auto b = static_cast<std::uint16_t>(bits);
    float f = bf16_bits_to_float(b);
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_bf16_bits(f), b);
  }
  EXPECT_EQ(bf16_bits_to_float(float_to_bf16_bits(1.0f + 1.0f / 256)), 1.0f);  // tie -> even
  EXPECT_TRUE(std::isnan(bf16_bits_to_float(float_to_bf16_bits(NAN))));
}
