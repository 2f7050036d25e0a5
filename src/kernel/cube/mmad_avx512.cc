// Mmad on AVX512F/BW: f32 FMA; f16 and bf16 widened to f32 (exact products); s8 widened to s16 and
// multiplied with vpmaddwd (exact). See mmad_simd.h for the engine.
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

}  // namespace tessera::kernel::detail

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC diagnostic pop
#pragma GCC pop_options
#endif
