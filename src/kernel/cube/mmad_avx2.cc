// Mmad on AVX2 + FMA, for x86-64 CPUs without AVX-512 (Zen 1-3, Haswell..Alder Lake): each call
// packs A into panels of 6 rows and B into panels of 16 columns (one Nz fractal column of C), both
// K-major, converting f16/bf16 to f32 (exact) and s8 to s32, and zeroing the K and N padding; a
// 6 x 16 microkernel (12 ymm accumulators) then runs over K blocks, reading and writing C in L0C
// directly (row r of a fractal column is 16 contiguous values). f32/f16/bf16 accumulate with FMA,
// s8 with 32-bit multiplies and adds (exact: |a b| <= 2^14, k <= 4095).
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "mmad_kernels.h"
#include "mmad_layout.h"
#include "tessera/core/float16.h"

// Everything defined below is compiled for AVX2 and runs only after the CPU check.
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma,f16c"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma,f16c")
#endif

namespace tessera::kernel::detail {
namespace {

constexpr uint32_t kMr = 6;    // rows per register block
constexpr uint32_t kNr = 16;   // columns per register block (one fractal column of C)
constexpr uint32_t kKb = 256;  // K per block: a 256 x 16 B panel (16 KB) stays in L1

struct OpF32 {
  using Vec = __m256;
  static Vec Zero() { return _mm256_setzero_ps(); }
  static Vec Load(const uint32_t* p) { return _mm256_loadu_ps(reinterpret_cast<const float*>(p)); }
  static void Store(uint32_t* p, Vec v) { _mm256_storeu_ps(reinterpret_cast<float*>(p), v); }
  static Vec Broadcast(const uint32_t* p) {
    return _mm256_broadcast_ss(reinterpret_cast<const float*>(p));
  }
  static Vec Madd(Vec acc, Vec a, Vec b) { return _mm256_fmadd_ps(a, b, acc); }
};

struct OpS32 {
  using Vec = __m256i;
  static Vec Zero() { return _mm256_setzero_si256(); }
  static Vec Load(const uint32_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  static void Store(uint32_t* p, Vec v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static Vec Broadcast(const uint32_t* p) { return _mm256_set1_epi32(static_cast<int>(*p)); }
  static Vec Madd(Vec acc, Vec a, Vec b) { return _mm256_add_epi32(acc, _mm256_mullo_epi32(a, b)); }
};

// One block of up to kMr rows x kNr columns over `kc` K values. a: kc x kMr (K-major), b: kc x kNr
// (K-major). C rows sit 16 units apart. `init`: nullptr to load C, else the 16 starting values of
// every row (the bias, or zeros).
template <class Op>
void Block(const uint32_t* a, const uint32_t* b, uint32_t kc, uint32_t* c, uint32_t rows,
           uint32_t cols, const uint32_t* init) {
  using Vec = typename Op::Vec;
  alignas(32) uint32_t tile[kMr * kNr];
  const bool full = rows == kMr && cols == kNr;
  if (init == nullptr) {
    if (!full) {
      std::memset(tile, 0, sizeof(tile));
      for (uint32_t r = 0; r < rows; ++r)
        std::memcpy(tile + r * kNr, c + r * 16, cols * 4);
    }
  }
  const uint32_t* src = full ? c : tile;
  Vec acc[kMr][2];
#pragma GCC unroll 6
  for (uint32_t r = 0; r < kMr; ++r) {
    if (init != nullptr) {
      acc[r][0] = Op::Load(init);
      acc[r][1] = Op::Load(init + 8);
    } else {
      acc[r][0] = Op::Load(src + r * 16);
      acc[r][1] = Op::Load(src + r * 16 + 8);
    }
  }
  for (uint32_t kk = 0; kk < kc; ++kk) {
    const Vec b0 = Op::Load(b + kk * kNr), b1 = Op::Load(b + kk * kNr + 8);
#pragma GCC unroll 6
    for (uint32_t r = 0; r < kMr; ++r) {
      const Vec av = Op::Broadcast(a + kk * kMr + r);
      acc[r][0] = Op::Madd(acc[r][0], av, b0);
      acc[r][1] = Op::Madd(acc[r][1], av, b1);
    }
  }
  if (full) {
#pragma GCC unroll 6
    for (uint32_t r = 0; r < kMr; ++r) {
      Op::Store(c + r * 16, acc[r][0]);
      Op::Store(c + r * 16 + 8, acc[r][1]);
    }
    return;
  }
  for (uint32_t r = 0; r < kMr; ++r) {
    Op::Store(tile + r * kNr, acc[r][0]);
    Op::Store(tile + r * kNr + 8, acc[r][1]);
  }
  for (uint32_t r = 0; r < rows; ++r)
    std::memcpy(c + r * 16, tile + r * kNr, cols * 4);
}

// Element (i, kk) of A and (kk, j) of B as a 32-bit unit (f32 bits, or s32 for s8).
template <MmadKind kKind>
uint32_t Unit(const void* base, size_t offset) {
  if constexpr (kKind == MmadKind::kF32) {
    uint32_t v;
    std::memcpy(&v, static_cast<const uint32_t*>(base) + offset, 4);
    return v;
  } else if constexpr (kKind == MmadKind::kS8) {
    return static_cast<uint32_t>(int32_t{static_cast<const int8_t*>(base)[offset]});
  } else {
    const uint16_t h = static_cast<const uint16_t*>(base)[offset];
    const float f = kKind == MmadKind::kF16 ? HalfBitsToFloat(h) : Bfloat16BitsToFloat(h);
    uint32_t v;
    std::memcpy(&v, &f, 4);
    return v;
  }
}

template <MmadKind kKind, class Op>
void Run(const MmadCall& call) {
  const uint32_t m = call.m, n = call.n, k = call.k;
  const uint32_t c0 = kKind == MmadKind::kF32 ? 8 : kKind == MmadKind::kS8 ? 32 : 16;
  const uint32_t k1 = (k + c0 - 1) / c0, n1 = (n + 15) / 16;
  const uint32_t mpanels = (m + kMr - 1) / kMr;
  const uint32_t mp = (m + 15) / 16 * 16;
  // A: panel p holds rows 6p..6p+5 as k x 6 (rows past m are zero).
  uint32_t* pa = MmadScratchUnits(0, size_t(mpanels) * kMr * k);
  for (uint32_t p = 0; p < mpanels; ++p) {
    uint32_t* dst = pa + size_t(p) * kMr * k;
    for (uint32_t r = 0; r < kMr; ++r) {
      const uint32_t i = p * kMr + r;
      for (uint32_t kk = 0; kk < k; ++kk) {
        // m == 1: A is a plain 1 x k vector.
        dst[size_t(kk) * kMr + r] =
            i >= m ? 0u : Unit<kKind>(call.a, m == 1 ? kk : L0aOffset(i, kk, k1, c0));
      }
    }
  }
  // B: panel q holds columns 16q..16q+15 as k x 16 (columns past n are zero).
  uint32_t* pb = MmadScratchUnits(1, size_t(n1) * kNr * k);
  for (uint32_t q = 0; q < n1; ++q) {
    uint32_t* dst = pb + size_t(q) * kNr * k;
    for (uint32_t jj = 0; jj < kNr; ++jj) {
      const uint32_t j = q * kNr + jj;
      for (uint32_t kk = 0; kk < k; ++kk)
        dst[size_t(kk) * kNr + jj] = j >= n ? 0u : Unit<kKind>(call.b, L0bOffset(kk, j, n1, c0));
    }
  }
  auto* c = static_cast<uint32_t*>(call.c);
  alignas(32) uint32_t start[kNr];
  for (uint32_t k0 = 0; k0 < k; k0 += kKb) {
    const uint32_t kc = k - k0 < kKb ? k - k0 : kKb;
    const bool load_c = call.accumulate || k0 > 0;
    for (uint32_t q = 0; q < n1; ++q) {
      const uint32_t cols = n - q * kNr < kNr ? n - q * kNr : kNr;
      const uint32_t* init = nullptr;
      if (!load_c) {
        std::memset(start, 0, sizeof(start));
        if (call.bias != nullptr) {
          std::memcpy(start, static_cast<const uint32_t*>(call.bias) + q * kNr, cols * 4);
        }
        init = start;
      }
      const uint32_t* b = pb + size_t(q) * kNr * k + size_t(k0) * kNr;
      for (uint32_t p = 0; p < mpanels; ++p) {
        const uint32_t rows = m - p * kMr < kMr ? m - p * kMr : kMr;
        Block<Op>(pa + size_t(p) * kMr * k + size_t(k0) * kMr, b, kc,
                  c + size_t(q) * mp * 16 + size_t(p) * kMr * 16, rows, cols, init);
      }
    }
  }
}

}  // namespace

void RunMmadAvx2(const MmadCall& call) {
  switch (call.kind) {
    case MmadKind::kF32:
      Run<MmadKind::kF32, OpF32>(call);
      return;
    case MmadKind::kF16:
      Run<MmadKind::kF16, OpF32>(call);
      return;
    case MmadKind::kBF16:
      Run<MmadKind::kBF16, OpF32>(call);
      return;
    case MmadKind::kS8:
      Run<MmadKind::kS8, OpS32>(call);
      return;
  }
}

}  // namespace tessera::kernel::detail

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
