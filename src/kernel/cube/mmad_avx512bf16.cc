// Mmad on AVX512F/BW + AVX512_BF16 + AVX512_VNNI: bf16 through vdpbf16ps (pairs along K), s8
// widened to s16 through vpdpwssd (exact), f32/f16 as in mmad_avx512.cc.
//
// Numerics of vdpbf16ps (Intel SDM): each f32 lane computes acc + a0*b0 + a1*b1 with the pair's
// products exact, round-to-nearest-even on the accumulation, MXCSR ignored, and denormal inputs
// (bf16 operands and the f32 accumulator) and denormal results flushed to zero. So results differ
// from the widened f32 path by the pairwise rounding and by flushing values below 2^-126; the NPU
// does not specify its accumulation order either.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "mmad_kernels.h"
#include "mmad_layout.h"
#include "tessera/core/float16.h"

#if defined(__clang__)
#pragma clang attribute push(                                                                     \
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,fma,f16c,avx512bf16,avx512vnni"))), \
    apply_to = function)
#else
#pragma GCC push_options
// GCC 12 reports its own _mm512_undefined_* helpers as maybe-uninitialized.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,fma,f16c,avx512bf16,avx512vnni")
#endif

#include "mmad_simd.h"

namespace tessera::kernel::detail {
namespace {

struct OpBf16Dot {
  static __m512i Fma(__m512i acc, __m512i a, __m512i b) {
    return _mm512_castps_si512(
        _mm512_dpbf16_ps(_mm512_castsi512_ps(acc), (__m512bh)a, (__m512bh)b));
  }
};

struct OpS16Vnni {
  static __m512i Fma(__m512i acc, __m512i a, __m512i b) { return _mm512_dpwssd_epi32(acc, a, b); }
};

}  // namespace

void RunMmadAvx512Bf16(const MmadCall& call) {
  RunSimd<OpBf16Dot, OpS16Vnni>(call);
}

}  // namespace tessera::kernel::detail

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC diagnostic pop
#pragma GCC pop_options
#endif
