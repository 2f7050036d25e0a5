// Helpers of the cube API tests: cube/MIX launches, random data, layout formulas written out from
// the reference (independent of the implementation's), and the CATLASS tolerance.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "../kernel_test_util.h"
#include "tessera/core/float16.h"
#include "tessera/device/device.h"
#include "tessera/kernel/kernel.h"

namespace tessera::kernel::testing {

// Launches `kernel` as `blocks` AIC blocks (or MIX groups) on a new stream; returns its status.
template <class... Params, class... Args>
Status RunCube(const char* name, device::KernelType type, uint32_t blocks,
               void (*kernel)(Params...), Args&&... args) {
  auto stream = device::Stream::Create();
  if (!stream.ok()) return stream.status();
  Status st = device::Launch(device::LaunchConfig{blocks, type, name}, kernel, *stream,
                             std::forward<Args>(args)...);
  if (!st.ok()) return st;
  return stream->Synchronize();
}

// Switches the profile for one scope.
class ProfileScope {
 public:
  explicit ProfileScope(const std::string& name) : previous_(device::CurrentArch().name) {
    (void)device::DeviceSynchronize();
    Status st = device::SetProfile(name);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  ~ProfileScope() {
    (void)device::DeviceSynchronize();
    (void)device::SetProfile(previous_);
  }

 private:
  std::string previous_;
};

template <class T>
T FromDouble(double v) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    return T(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

// Random values exactly representable in T (small integers for int8, else uniform in [-2, 2)
// rounded to T).
template <class T>
std::vector<T> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<int> d(std::is_signed_v<T> ? -128 : 0,
                                         std::is_signed_v<T> ? 127 : 255);
    for (T& x : v)
      x = static_cast<T>(d(rng));
  } else {
    std::uniform_real_distribution<float> d(-2.0f, 2.0f);
    for (T& x : v)
      x = FromDouble<T>(d(rng));
  }
  return v;
}

template <class T>
double ToDouble(T v) {
  return static_cast<double>(static_cast<float>(v));
}
template <>
inline double ToDouble<int8_t>(int8_t v) {
  return v;
}
template <>
inline double ToDouble<int32_t>(int32_t v) {
  return v;
}

inline size_t NzOffset(size_t h, size_t w, size_t hp, size_t c0) {
  return (w / c0) * hp * c0 + h * c0 + w % c0;
}
inline size_t ZzOffset(size_t i, size_t kk, size_t k1, size_t c0) {
  return ((i / 16) * k1 + kk / c0) * 16 * c0 + (i % 16) * c0 + kk % c0;
}
inline size_t ZnOffset(size_t kk, size_t j, size_t n1, size_t c0) {
  return ((kk / c0) * n1 + j / 16) * (16 * c0) + (j % 16) * c0 + kk % c0;
}

// CATLASS's rule: |out - ref| <= rtol * max(1, |ref|), rtol 1/256 for K < 2048 else 1/128, plus
// the output's own rounding (2^-8 relative for half, 2^-7 for bfloat16).
inline double Tolerance(double ref, uint32_t k, double out_rounding) {
  const double rtol = k < 2048 ? 1.0 / 256 : 1.0 / 128;
  return (rtol + out_rounding) * std::max(1.0, std::fabs(ref));
}

inline uint32_t Ceil(uint32_t v, uint32_t to) {
  return (v + to - 1) / to;
}

}  // namespace tessera::kernel::testing
