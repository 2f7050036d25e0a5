#include "tessera/core/float16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace tessera {
namespace {

// Independent reference: the value of a half bit pattern, computed with ldexp.
double HalfValue(uint16_t bits) {
  const int e = (bits >> 10) & 0x1F;
  const int m = bits & 0x3FF;
  if (e == 0x1F && m == 0) {
    return (bits & 0x8000) ? -std::numeric_limits<double>::infinity()
                           : std::numeric_limits<double>::infinity();
  }
  const double mag = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return (bits & 0x8000) ? -mag : mag;
}

// Reference float -> half: nearest representable half by search, ties to even, overflow at 65520.
uint16_t RefToHalf(float f) {
  const double a = std::fabs(static_cast<double>(f));
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  if (a >= 65520.0) return sign | 0x7C00;
  uint16_t lo = 0, hi = 0x7BFF;  // largest finite
  while (lo < hi) {              // largest pattern whose value <= a
    const uint16_t mid = static_cast<uint16_t>((lo + hi + 1) / 2);
    if (HalfValue(mid) <= a)
      lo = mid;
    else
      hi = static_cast<uint16_t>(mid - 1);
  }
  const double below = HalfValue(lo);
  if (below == a) return sign | lo;
  const uint16_t up = static_cast<uint16_t>(lo + 1);
  const double above = up == 0x7C00 ? 65536.0 : HalfValue(up);
  const double dlo = a - below, dhi = above - a;
  uint16_t pick = dlo < dhi ? lo : (dhi < dlo ? up : ((lo & 1) ? up : lo));
  return sign | pick;
}

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

TEST(HalfTest, EveryBitPatternRoundTripsThroughFloat) {
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    const auto bits = static_cast<uint16_t>(b);
    const float f = HalfBitsToFloat(bits);
    const bool is_nan = ((bits >> 10) & 0x1F) == 0x1F && (bits & 0x3FF) != 0;
    if (is_nan) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << b;
    } else {
      ASSERT_EQ(static_cast<double>(f), HalfValue(bits)) << std::hex << b;
    }
    ASSERT_EQ(FloatToHalfBits(f), bits) << std::hex << b;
  }
}

TEST(HalfTest, MatchesReferenceOnRandomFloats) {
  std::mt19937 rng(1234);
  std::uniform_int_distribution<uint32_t> any;
  std::uniform_real_distribution<float> exponent(-27.0f, 17.0f);
  for (int i = 0; i < 300000; ++i) {
    float f;
    if (i % 2) {
      f = FromBits(any(rng));
      if (std::isnan(f)) continue;
    } else {
      f = std::ldexp(1.0f + static_cast<float>(any(rng) % 1000000) / 1e6f,
                     static_cast<int>(exponent(rng))) *
          ((i % 4) ? 1.0f : -1.0f);
    }
    ASSERT_EQ(FloatToHalfBits(f), RefToHalf(f)) << std::hexfloat << f;
  }
}

TEST(HalfTest, MidpointsTieToEven) {
  // Each midpoint between adjacent finite halves, and the floats just around it.
  for (uint32_t b = 0; b < 0x7BFF; ++b) {
    const double mid =
        (HalfValue(static_cast<uint16_t>(b)) + HalfValue(static_cast<uint16_t>(b + 1))) / 2;
    const float m = static_cast<float>(mid);
    ASSERT_EQ(static_cast<double>(m), mid);  // midpoints are exact in float
    const uint16_t even = (b & 1) ? static_cast<uint16_t>(b + 1) : static_cast<uint16_t>(b);
    ASSERT_EQ(FloatToHalfBits(m), even) << b;
    ASSERT_EQ(FloatToHalfBits(std::nextafter(m, 0.0f)), b) << b;
    ASSERT_EQ(FloatToHalfBits(std::nextafter(m, 1e9f)), b + 1) << b;
  }
}

TEST(HalfTest, DoublesNearAMidpointRoundOnce) {
  // A double just off a midpoint is no midpoint: rounding it to float first would land on the
  // midpoint and tie to even, the wrong way for every odd lower neighbour.
  for (uint32_t b = 0; b < 0x7BFF; ++b) {
    const double lo = HalfValue(static_cast<uint16_t>(b));
    const double hi = HalfValue(static_cast<uint16_t>(b + 1));
    const double mid = (lo + hi) / 2;
    const double off = (hi - lo) * 0x1p-36;  // far below float's resolution at mid
    for (const double sign : {1.0, -1.0}) {
      const uint16_t s = sign < 0 ? 0x8000 : 0;
      ASSERT_EQ(half(sign * (mid + off)).bits, s | (b + 1)) << b;
      ASSERT_EQ(half(sign * (mid - off)).bits, s | b) << b;
      ASSERT_EQ(half(sign * mid).bits, s | ((b & 1) ? b + 1 : b)) << b;
    }
  }
}

TEST(Bfloat16Test, DoublesNearAMidpointRoundOnce) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> finite(0x0001, 0x7F7E);
  for (int i = 0; i < 100000; ++i) {
    const uint16_t b = static_cast<uint16_t>(finite(rng));
    const double lo = Bfloat16BitsToFloat(b);
    const double hi = Bfloat16BitsToFloat(static_cast<uint16_t>(b + 1));
    const double mid = (lo + hi) / 2;
    const double off = (hi - lo) * 0x1p-36;
    ASSERT_EQ(bfloat16(mid + off).bits, b + 1) << b;
    ASSERT_EQ(bfloat16(-(mid - off)).bits, 0x8000 | b) << b;
  }
}

TEST(HalfTest, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(FloatToHalfBits(inf), 0x7C00);
  EXPECT_EQ(FloatToHalfBits(-inf), 0xFC00);
  EXPECT_EQ(FloatToHalfBits(65504.0f), 0x7BFF);
  EXPECT_EQ(FloatToHalfBits(65519.99f), 0x7BFF);
  EXPECT_EQ(FloatToHalfBits(65520.0f), 0x7C00);
  EXPECT_EQ(FloatToHalfBits(1e10f), 0x7C00);
  EXPECT_EQ(FloatToHalfBits(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -25)), 0x0000);  // tie -> even (zero)
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(FloatToHalfBits(std::ldexp(3.0f, -25)), 0x0002);  // tie between 1 and 2 -> 2
  EXPECT_EQ(FloatToHalfBits(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(FloatToHalfBits(1e-30f), 0x0000);
  const uint16_t nan = FloatToHalfBits(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x3FF, 0);
  // A float NaN whose payload sits only in low bits still converts to a NaN.
  EXPECT_NE(FloatToHalfBits(FromBits(0x7F800001u)) & 0x3FF, 0);
  EXPECT_EQ(FloatToHalfBits(FromBits(0xFF800001u)) & 0x8000, 0x8000);
  EXPECT_EQ(static_cast<float>(half(1.5f)), 1.5f);
}

TEST(Bfloat16Test, TiesToEven) {
  EXPECT_EQ(FloatToBfloat16Bits(FromBits(0x3F808000u)), 0x3F80);  // tie, 0x3F80 even
  EXPECT_EQ(FloatToBfloat16Bits(FromBits(0x3F818000u)), 0x3F82);  // tie, rounds up to even
  EXPECT_EQ(FloatToBfloat16Bits(FromBits(0x3F808001u)), 0x3F81);  // above the tie
  EXPECT_EQ(FloatToBfloat16Bits(FromBits(0x3F817FFFu)), 0x3F81);  // below the tie
  EXPECT_EQ(FloatToBfloat16Bits(FromBits(0xBF808000u)), 0xBF80);  // sign does not matter
}

TEST(Bfloat16Test, MatchesReferenceOnRandomFloats) {
  std::mt19937 rng(99);
  std::uniform_int_distribution<uint32_t> any;
  for (int i = 0; i < 500000; ++i) {
    const uint32_t u = any(rng);
    const float f = FromBits(u);
    const uint16_t got = FloatToBfloat16Bits(f);
    if (std::isnan(f)) {
      ASSERT_TRUE(std::isnan(Bfloat16BitsToFloat(got)));
      ASSERT_EQ(got & 0x8000, (u >> 16) & 0x8000);
      continue;
    }
    // Reference: the two neighbours toward zero and away from zero, compared in long double.
    const uint16_t toward = static_cast<uint16_t>(u >> 16);
    const uint16_t away = static_cast<uint16_t>(toward + 1);
    const long double a = std::fabs(static_cast<long double>(f));
    const long double lo = std::fabs(static_cast<long double>(Bfloat16BitsToFloat(toward)));
    const long double hi = (away & 0x7FFF) == 0x7F80
                               ? std::ldexp(1.0L, 128)
                               : std::fabs(static_cast<long double>(Bfloat16BitsToFloat(away)));
    uint16_t want;
    if ((u & 0xFFFF) == 0) {
      want = toward;
    } else if (a - lo < hi - a) {
      want = toward;
    } else if (hi - a < a - lo) {
      want = away;
    } else {
      want = (toward & 1) ? away : toward;
    }
    ASSERT_EQ(got, want) << std::hex << u;
  }
}

TEST(Bfloat16Test, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(FloatToBfloat16Bits(inf), 0x7F80);
  EXPECT_EQ(FloatToBfloat16Bits(-inf), 0xFF80);
  EXPECT_EQ(FloatToBfloat16Bits(FromBits(0x7F7FFFFFu)), 0x7F80);  // max float rounds to Inf
  EXPECT_EQ(FloatToBfloat16Bits(FromBits(0x00000001u)), 0x0000);  // tiny subnormal -> 0
  EXPECT_EQ(FloatToBfloat16Bits(FromBits(0x00018000u)), 0x0002);  // subnormal tie -> even
  EXPECT_TRUE(std::isnan(Bfloat16BitsToFloat(FloatToBfloat16Bits(FromBits(0x7F800001u)))));
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    const float f = Bfloat16BitsToFloat(static_cast<uint16_t>(b));
    if (std::isnan(f)) continue;
    ASSERT_EQ(FloatToBfloat16Bits(f), b);  // exact values convert exactly
    ASSERT_EQ(Bits(f) >> 16, b);
  }
  EXPECT_EQ(static_cast<float>(bfloat16(2.0f)), 2.0f);
}

}  // namespace
}  // namespace tessera
