// Batched operands with numpy broadcasting: where the A and B of batch `i` start.
#pragma once

#include <cstdint>

namespace tessera::gemm::kernel {

// Up to kMaxBatchDims batch dimensions (outermost first). The output batches are dense and in
// row-major order over `dims`; A and B step by their own strides along each dimension (0 where
// they broadcast).
struct BatchLayout {
  static constexpr uint32_t kMaxBatchDims = 6;
  uint32_t rank = 0;
  uint64_t dims[kMaxBatchDims] = {};
  uint64_t stride_a[kMaxBatchDims] = {};  // elements
  uint64_t stride_b[kMaxBatchDims] = {};

  constexpr uint64_t Count() const {
    uint64_t n = 1;
    for (uint32_t i = 0; i < rank; ++i)
      n *= dims[i];
    return n;
  }
  // Element offsets of A and B in output batch `batch`.
  constexpr void Offsets(uint64_t batch, uint64_t& a, uint64_t& b) const {
    a = 0;
    b = 0;
    for (uint32_t i = rank; i-- > 0;) {
      const uint64_t idx = batch % dims[i];
      batch /= dims[i];
      a += idx * stride_a[i];
      b += idx * stride_b[i];
    }
  }
};

}  // namespace tessera::gemm::kernel
