// Helpers shared by the vector-instruction tests: host-memory tensors with sentinels, the
// per-type conversions of the scalar references, ulp distances, and the Highway target sweep.
#pragma once

#include <gtest/gtest.h>

#include <hwy/targets.h>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "tessera/kernel/vector.h"

namespace tessera::kernel::testing {

inline constexpr uint32_t kPad = 9;  // sentinel elements after every output
inline constexpr int32_t kCounts[] = {1, 7, 31, 64, 257, 4097};

template <class T>
uint32_t Bits(T v) {
  if constexpr (sizeof(T) == 1) {
    return v;
  } else if constexpr (sizeof(T) == 2) {
    return std::bit_cast<uint16_t>(v);
  } else {
    return std::bit_cast<uint32_t>(v);
  }
}

template <class T>
T FromF(float f) {
  if constexpr (std::is_same_v<T, int32_t>) {
    return static_cast<int32_t>(f);
  } else {
    return T(f);
  }
}
template <class T>
float ToF(T v) {
  return static_cast<float>(v);
}

template <class T>
std::string TypeName() {
  if constexpr (std::is_same_v<T, float>) return "float";
  if constexpr (std::is_same_v<T, half>) return "half";
  if constexpr (std::is_same_v<T, bfloat16>) return "bfloat16";
  return "int32";
}

// A host buffer of n elements plus kPad sentinels, seen as an unchecked LocalTensor of n + kPad
// elements (so an overrun would land inside the view and be caught by ExpectSentinels).
template <class T>
struct Buf {
  std::vector<T> v;
  uint32_t n;
  explicit Buf(uint32_t count) : v(count + kPad), n(count) {
    for (uint32_t i = 0; i < kPad; ++i)
      v[count + i] = Sentinel(i);
  }
  static T Sentinel(uint32_t i) {
    if constexpr (std::is_same_v<T, int32_t>) {
      return static_cast<int32_t>(0x5A5A0000 + i);
    } else if constexpr (std::is_same_v<T, uint8_t>) {
      return static_cast<uint8_t>(0xA5 + i);
    } else {
      return FromF<T>(-12345.0f - static_cast<float>(i));
    }
  }
  LocalTensor<T> t() {
    return LocalTensor<T>(v.data(), n + kPad, TPosition::VECCALC, false, nullptr, 0);
  }
  T& operator[](size_t i) { return v[i]; }
  void ExpectSentinels(const std::string& what) const {
    for (uint32_t i = 0; i < kPad; ++i) {
      ASSERT_EQ(Bits(v[n + i]), Bits(Sentinel(i)))
          << what << ": element " << n + i << " past count";
    }
  }
};

// Random values: floats uniform in [lo, hi] (then rounded to T), int32 uniform in [lo, hi].
template <class T>
Buf<T> Random(uint32_t n, float lo, float hi, uint32_t seed) {
  Buf<T> b(n);
  std::mt19937 rng(seed);
  if constexpr (std::is_same_v<T, int32_t>) {
    std::uniform_int_distribution<int32_t> dist(static_cast<int32_t>(lo), static_cast<int32_t>(hi));
    for (uint32_t i = 0; i < n; ++i)
      b[i] = dist(rng);
  } else {
    std::uniform_real_distribution<float> dist(lo, hi);
    for (uint32_t i = 0; i < n; ++i)
      b[i] = FromF<T>(dist(rng));
  }
  return b;
}

// Distance in units in the last place of float between `got` and the exact `want`.
inline double UlpError(float got, long double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0.0 : 1e30;
  // Exact values at or beyond FLT_MAX + half an ulp round to infinity.
  if (std::fabs(want) >= std::ldexp(1.0L, 128) - std::ldexp(1.0L, 103)) {
    return std::isinf(got) && (got > 0) == (want > 0) ? 0.0 : 1e30;
  }
  if (std::isnan(got) || std::isinf(got)) return 1e30;
  const long double a = std::fabs(want);
  int e = 0;
  std::frexp(static_cast<double>(a), &e);  // a in [2^(e-1), 2^e)
  const long double ulp = std::ldexp(1.0L, std::max(e - 24, -149));
  return static_cast<double>(std::fabs(static_cast<long double>(got) - want) / ulp);
}

// Difference in representable values between two finite values of a 16-bit float type.
template <class T>
int64_t Steps16(T a, T b) {
  const auto ord = [](uint16_t x) -> int64_t {
    return (x & 0x8000) ? -int64_t(x & 0x7FFF) : int64_t(x);
  };
  return std::llabs(ord(Bits(a)) - ord(Bits(b)));
}

// Runs each test once per Highway target compiled into tessera_kernel and supported here.
class TargetTest : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override { hwy::SetSupportedTargetsForTest(GetParam()); }
  void TearDown() override { hwy::SetSupportedTargetsForTest(0); }
};

inline std::vector<int64_t> CompiledTargets() {
  std::vector<int64_t> out;
  for (int64_t t : {int64_t{HWY_SCALAR}, int64_t{HWY_SSE4}, int64_t{HWY_AVX2}, int64_t{HWY_AVX3}}) {
    if (t == HWY_SCALAR || (hwy::SupportedTargets() & t) != 0) out.push_back(t);
  }
  return out;
}

inline std::string TargetParamName(const ::testing::TestParamInfo<int64_t>& info) {
  return hwy::TargetName(info.param);
}

}  // namespace tessera::kernel::testing
