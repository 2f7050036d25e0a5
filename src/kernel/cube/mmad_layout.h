// Element offsets of the 2201 L0 layouts (see mmad_kernels.h and docs/cube.md), shared by the
// Mmad implementations.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mmad_kernels.h"

namespace tessera::kernel::detail {

// L0A Zz for A[m x k]: strips of 16 rows, each holding k1 = ceil(k / c0) fractals of 16 x c0.
constexpr size_t L0aOffset(uint32_t i, uint32_t kk, uint32_t k1, uint32_t c0) {
  return (size_t(i / 16) * k1 + kk / c0) * 16 * c0 + (i % 16) * c0 + kk % c0;
}
// L0B Zn for B[k x n]: fractals of c0 (k) x 16 (n), row-major between, column-major inside.
constexpr size_t L0bOffset(uint32_t kk, uint32_t j, uint32_t n1, uint32_t c0) {
  return (size_t(kk / c0) * n1 + j / 16) * 16 * c0 + (j % 16) * c0 + kk % c0;
}
// L0C Nz with 16 x 16 fractals; mp = m rounded up to 16.
constexpr size_t L0cOffset(uint32_t i, uint32_t j, uint32_t mp) {
  return size_t(j / 16) * mp * 16 + size_t(i) * 16 + j % 16;
}

// The implementations: portable (mmad_reference.cc), AVX2 (mmad_avx2.cc) and AVX-512
// (mmad_avx512*.cc); only call them when MmadPathsAvailable() lists their path.
void RunMmadScalar(const MmadCall& call);
void RunMmadAvx2(const MmadCall& call);
void RunMmadAvx512(const MmadCall& call);
void RunMmadAvx512Bf16(const MmadCall& call);
// LoadDataWithTranspose's b32 square (cube_moves.cc) on AVX512F: `in` two 16 x 8 Nz fractals
// side by side, `out` the transposed square with its second fractal `frac2` bytes after the first.
void TransposeSquare32Avx512(const std::byte* in, std::byte* out, size_t frac2);
// The same on AVX2 (for CPUs whose best path is kAvx2).
void TransposeSquare32Avx2(const std::byte* in, std::byte* out, size_t frac2);

// Scratch memory of the calling thread, 64-byte aligned, grown on demand and never shrunk (no
// allocation once warm): which = 0 for A, 1 for B. Valid until the thread's next call.
uint32_t* MmadScratchUnits(int which, size_t units);

}  // namespace tessera::kernel::detail
