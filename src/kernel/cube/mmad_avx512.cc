// Mmad on AVX512F/BW: f32 FMA; f16 and bf16 widened to f32 (exact products); s8 widened to s16 and
// multiplied with vpmaddwd (exact). See mmad_simd.h for the engine. Also the b32 square transpose
// of LoadDataWithTranspose, which shares the engine's B-packing transpose.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "mmad_kernels.h"
#include "mmad_layout.h"
#include "tessera/core/float16.h"

// Everything defined below is compiled for AVX-512 and runs only after the CPU check.
#if defined(__clang__)
#pragma clang attribute push( \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma,f16c"))), apply_to = function)
#else
#pragma GCC push_options
// GCC 12 reports its own _mm512_undefined_* helpers as maybe-uninitialized.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,fma,f16c")
#endif

#include "mmad_simd.h"

namespace tessera::kernel::detail {
namespace {

// s16 pairs: acc += a0*b0 + a1*b1 (products of s8 values: no overflow, exact).
struct OpS16Madd {
  static __m512i Fma(__m512i acc, __m512i a, __m512i b) {
    return _mm512_add_epi32(acc, _mm512_madd_epi16(a, b));
  }
};

}  // namespace

void RunMmadAvx512(const MmadCall& call) {
  RunSimd<void, OpS16Madd>(call);
}

// Each 16 x 8 half of the square (fractal g: rows r, columns 8g..8g+7, two rows per vector) goes
// through stages 1 and 2 of ScatterFractal's transpose, which leave columns c, c + 1 of rows
// 8q..8q+7 in one vector: rows c, c + 1 (64 contiguous bytes) of output fractal q.
void TransposeSquare32Avx512(const std::byte* in, std::byte* out, size_t frac2) {
  for (int g = 0; g < 2; ++g) {
    __m512i w[2][2][2];
    Transpose16x8Stages12(reinterpret_cast<const uint32_t*>(in + g * 512), w);
#pragma GCC unroll 2
    for (int h = 0; h < 2; ++h) {
#pragma GCC unroll 2
      for (int s = 0; s < 2; ++s) {
        const int c = 8 * g + 4 * h + 2 * s;
#pragma GCC unroll 2
        for (int q = 0; q < 2; ++q)
          _mm512_storeu_si512(out + q * frac2 + c * 32, w[h][s][q]);
      }
    }
  }
}

}  // namespace tessera::kernel::detail

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC diagnostic pop
#pragma GCC pop_options
#endif
