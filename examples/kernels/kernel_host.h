// Host-side plumbing shared by the sample programs: device copies of host vectors and the tiling
// buffer, freed on scope exit.
#pragma once

#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "tessera/core/float16.h"
#include "tessera/device/launch.h"
#include "tessera/device/memory.h"
#include "tessera/device/stream.h"
#include "tessera/tiling/tiling_data.h"

namespace samples {

class DeviceBytes {
 public:
  static tessera::Result<DeviceBytes> From(const void* host, size_t bytes) {
    TESSERA_ASSIGN_OR_RETURN(void* p, tessera::device::Malloc(bytes == 0 ? 1 : bytes));
    DeviceBytes d(p, bytes);
    if (bytes > 0) {
      TESSERA_RETURN_IF_ERROR(tessera::device::Memcpy(p, bytes, host, bytes,
                                                      tessera::device::MemcpyKind::kHostToDevice));
    }
    return d;
  }
  template <class T>
  static tessera::Result<DeviceBytes> From(const std::vector<T>& host) {
    return From(host.data(), host.size() * sizeof(T));
  }
  DeviceBytes(DeviceBytes&& other) noexcept : ptr_(other.ptr_), bytes_(other.bytes_) {
    other.ptr_ = nullptr;
  }
  DeviceBytes(const DeviceBytes&) = delete;
  ~DeviceBytes() {
    if (ptr_) (void)tessera::device::Free(ptr_);
  }

  uint8_t* get() const { return static_cast<uint8_t*>(ptr_); }
  template <class T>
  tessera::Status CopyTo(std::vector<T>& host) const {
    return tessera::device::Memcpy(host.data(), host.size() * sizeof(T), ptr_, bytes_,
                                   tessera::device::MemcpyKind::kDeviceToHost);
  }

 private:
  DeviceBytes(void* p, size_t bytes) : ptr_(p), bytes_(bytes) {}
  void* ptr_;
  size_t bytes_;
};

// n values drawn uniformly from [lo, hi] (integers: inclusive), reproducible from `seed`.
template <class T>
std::vector<T> RandomVector(size_t n, T lo, T hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<T> dist(lo, hi);
    for (T& e : v)
      e = dist(rng);
  } else {
    std::uniform_real_distribution<T> dist(lo, hi);
    for (T& e : v)
      e = dist(rng);
  }
  return v;
}

// Runs a one-input, one-output vector kernel `kernel(x, y, tiling)` on `block_dim` cores of a new
// stream and copies y back to the host.
template <class Kernel, class Tiling, class T>
tessera::Status RunUnaryKernel(Kernel& kernel, uint32_t block_dim, const Tiling& tiling,
                               const std::vector<T>& x, std::vector<T>& y) {
  TESSERA_ASSIGN_OR_RETURN(auto dx, DeviceBytes::From(x));
  TESSERA_ASSIGN_OR_RETURN(auto dy, DeviceBytes::From(y));
  TESSERA_ASSIGN_OR_RETURN(auto dt, DeviceBytes::From(tessera::tiling::SerializeTiling(tiling)));
  TESSERA_ASSIGN_OR_RETURN(tessera::device::Stream stream, tessera::device::Stream::Create());
  TESSERA_RETURN_IF_ERROR(
      tessera::device::Launch(kernel, block_dim, stream, dx.get(), dy.get(), dt.get()));
  TESSERA_RETURN_IF_ERROR(stream.Synchronize());
  return dy.CopyTo(y);
}

// n integers in [-10, 10) as half, reproducible from `seed`: exact in half, and their products
// sum exactly in fp32 for the K of the samples (as in the vendor's matmul samples).
inline std::vector<tessera::half> SmallIntegerHalves(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-10, 9);
  std::vector<tessera::half> v(n);
  for (tessera::half& e : v)
    e = tessera::half(static_cast<float>(dist(rng)));
  return v;
}

// The fp32 product of row-major a (m x k) and b (k x n), one scalar loop per element.
inline std::vector<float> MatmulF32(const std::vector<tessera::half>& a,
                                    const std::vector<tessera::half>& b, uint32_t m, uint32_t k,
                                    uint32_t n) {
  std::vector<float> c(static_cast<size_t>(m) * n);
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (uint32_t p = 0; p < k; ++p)
        acc += static_cast<float>(a[i * k + p]) * static_cast<float>(b[p * n + j]);
      c[static_cast<size_t>(i) * n + j] = acc;
    }
  }
  return c;
}

}  // namespace samples
