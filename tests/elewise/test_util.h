// Helpers of the elewise tests: device buffers filled with random data, host references in
// double precision, and tolerance checks that name the first mismatching element.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tessera/core/data_type.h"
#include "tessera/core/float16.h"
#include "tessera/core/shape.h"
#include "tessera/device/memory.h"
#include "tessera/device/stream.h"
#include "tessera/elewise/arguments.h"

namespace tessera::elewise::testing {

// Host value of element type T as double, and back (rounded to nearest even as the device does).
template <class T>
double ToDouble(T v) {
  return static_cast<double>(static_cast<float>(v));
}
template <class T>
T FromDouble(double v) {
  if constexpr (std::is_same_v<T, int32_t>) {
    return static_cast<int32_t>(v);
  } else {
    return T(static_cast<float>(v));
  }
}

template <class T>
DataType DTypeOf() {
  if constexpr (std::is_same_v<T, float>) return DataType::kFloat32;
  if constexpr (std::is_same_v<T, half>) return DataType::kFloat16;
  if constexpr (std::is_same_v<T, bfloat16>) return DataType::kBfloat16;
  return DataType::kInt32;
}

// A device buffer of n elements of T with a host mirror. Allocated one element larger than
// asked and the extra element holds a sentinel, so writes past the end are caught.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(int64_t n) : host(static_cast<size_t>(n)), n_(n) {
    ptr_ = static_cast<T*>(*::tessera::device::Malloc(static_cast<size_t>(n + 1) * sizeof(T)));
    Upload();
  }
  ~DeviceBuffer() { (void)::tessera::device::Free(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // Uniform random values in [lo, hi) (integers for int32), then uploads with the sentinel.
  void Random(uint32_t seed, double lo = -2.0, double hi = 2.0) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> dist(lo, hi);
    for (T& v : host)
      v = FromDouble<T>(std::is_same_v<T, int32_t> ? std::floor(dist(rng)) : dist(rng));
    Upload();
  }
  void Upload() {
    std::vector<T> staged = host;
    staged.push_back(Sentinel());
    ASSERT_TRUE(::tessera::device::Memcpy(ptr_, staged.size() * sizeof(T), staged.data(),
                                          staged.size() * sizeof(T),
                                          ::tessera::device::MemcpyKind::kHostToDevice)
                    .ok());
  }
  // Downloads into `host` and checks the sentinel survived.
  void Download() {
    std::vector<T> staged(static_cast<size_t>(n_ + 1));
    ASSERT_TRUE(::tessera::device::Memcpy(staged.data(), staged.size() * sizeof(T), ptr_,
                                          staged.size() * sizeof(T),
                                          ::tessera::device::MemcpyKind::kDeviceToHost)
                    .ok());
    EXPECT_EQ(std::memcmp(&staged.back(), &kSentinelBytes, sizeof(T)), 0)
        << "a kernel wrote past the end of a tensor";
    staged.pop_back();
    host = staged;
  }
  TensorArg Arg(std::initializer_list<int64_t> dims) const {
    return TensorArg{ptr_, DTypeOf<T>(), *Shape::Make(dims), 0};
  }
  T* data() const { return ptr_; }
  double At(int64_t i) const { return ToDouble(host[static_cast<size_t>(i)]); }

  std::vector<T> host;

 private:
  static constexpr uint32_t kSentinelBytes = 0x7E7E7E7Eu;
  static T Sentinel() {
    T t;
    std::memcpy(static_cast<void*>(&t), &kSentinelBytes, sizeof(T));
    return t;
  }
  T* ptr_ = nullptr;
  int64_t n_;
};

template <>
inline double ToDouble<int32_t>(int32_t v) {
  return static_cast<double>(v);
}

// |got - want| <= abs_tol + rel_tol * |want|; NaN matches NaN, infinities match by sign.
inline ::testing::AssertionResult Near(double got, double want, double abs_tol, double rel_tol) {
  if (std::isnan(want) && std::isnan(got)) return ::testing::AssertionSuccess();
  if (std::isinf(want) && got == want) return ::testing::AssertionSuccess();
  if (std::fabs(got - want) <= abs_tol + rel_tol * std::fabs(want)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "got " << got << ", want " << want;
}

// Checks every element of `out` against ref(i); reports the first few mismatches.
template <class T, class Ref>
void ExpectAllNear(DeviceBuffer<T>& out, int64_t n, Ref ref, double abs_tol, double rel_tol,
                   const std::string& what) {
  out.Download();
  int failures = 0;
  for (int64_t i = 0; i < n && failures < 5; ++i) {
    const auto r = Near(out.At(i), ref(i), abs_tol, rel_tol);
    if (!r) {
      ADD_FAILURE() << what << ": element " << i << ": " << r.message();
      ++failures;
    }
  }
}

// Tolerances for results rounded to T: the rounding of T plus `compute` relative error in fp32.
template <class T>
double RelTol(double compute) {
  if constexpr (std::is_same_v<T, half>) return compute + 1.0 / 1024;
  if constexpr (std::is_same_v<T, bfloat16>) return compute + 1.0 / 128;
  return compute;
}

inline Status RunAndSync(Status launched) {
  if (!launched.ok()) return launched;
  return ::tessera::device::Stream().Synchronize();
}

}  // namespace tessera::elewise::testing
