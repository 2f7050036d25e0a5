// Internal ABI between the advanced math and activation templates (compat/kernel/adv/*.h) and
// their Highway implementations in src/compat/kernel/adv (dynamically dispatched, the fp32 math
// from tessera/kernel/detail/math-inl.h). Pointers are raw element pointers of type `t`; counts
// are already validated by the caller. half and bfloat16 are computed in fp32 and rounded once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "tessera/kernel/detail/vector_dispatch.h"

namespace tessera::compat::adv {

using DType = ::tessera::kernel::vec::DType;

enum class UnaryFn : uint8_t {
  kAcosh,
  kErf,
  kFrac,
  kCeil,
  kFloor,
  kRint,
  kTrunc,
  kLog2,
  kLog10,
  kSwish,  // x * sigmoid(param * x)
};

enum class BinaryFn : uint8_t {
  kPow,     // a^b
  kFmod,    // fmod(a, b)
  kGeGlu,   // a * gelu_tanh(b)
  kSwiGlu,  // a * b * sigmoid(param * b)
};

// dst[i] = fn(src[i]).
void Unary(UnaryFn fn, DType t, void* dst, const void* src, size_t n, float param);
// dst[i] = fn(a[i], b[i]); a == nullptr uses a_scalar for every element, b == nullptr b_scalar.
void Binary(BinaryFn fn, DType t, void* dst, const void* a, const void* b, size_t n, float a_scalar,
            float b_scalar, float param);
// dst[i] = a[i] * b[i] + c[i], fused (one rounding in fp32).
void Fma(DType t, void* dst, const void* a, const void* b, const void* c, size_t n);
// dst[i] += src[i] * s, dst of type dst_t (fp32 or the source type), src of type src_t.
void Axpy(DType dst_t, DType src_t, void* dst, const void* src, float s, size_t n);

// dst = src clamped to [lo, hi] where use_lo / use_hi (NaN passes); lo / hi nullptr use the
// scalars.
void Clamp(DType t, void* dst, const void* src, const void* lo, const void* hi, size_t n,
           float lo_scalar, float hi_scalar, bool use_lo, bool use_hi);
enum class BitFn : uint8_t { kXor, kAnd };
// Bitwise op over `bytes` bytes (the element width does not matter).
void Bitwise(BitFn fn, void* dst, const void* a, const void* b, size_t bytes);
// dst[i] = cond[i] != 0 ? a[i] : b[i] for elements of elem_bytes (1, 2 or 4); a / b nullptr use
// the scalars' bit patterns.
void Where(size_t elem_bytes, void* dst, const uint8_t* cond, const void* a, const void* b,
           uint32_t a_bits, uint32_t b_bits, size_t n);
// isfinite(src[i]): 1 / 0 bytes when dst_bytes, else 1 / 0 in the source type.
void IsFinite(DType t, void* dst, bool dst_bytes, const void* src, size_t n);
// dst[i] (a byte) = a[i] != 0 && b[i] != 0, elements of elem_bytes (1, 2, 4); ignore_sign makes
// -0 count as zero (floating inputs).
void LogicalAnd(size_t elem_bytes, bool ignore_sign, uint8_t* dst, const void* a, const void* b,
                size_t n);
// Prefix sums of a rows x cols tensor in fp32, in order: along each row (last_axis) or down the
// columns; each partial sum rounded once to t.
void CumSum(DType t, void* dst, const void* src, size_t rows, size_t cols, bool last_axis);

// Row-wise softmax family on rows x cols (row stride `cols`), fp32 statistics. `max`/`sum` get
// one value per row (nullptr: not wanted). LogSoftMax writes log10 of the softmax when log10.
void SoftMaxRows(DType t, void* dst, const void* src, size_t rows, size_t cols, size_t valid_cols,
                 float* max, float* sum, bool log10);
// Softmax with given row max and sum: dst = e^(x - max) / sum.
void SimpleSoftMaxRows(DType t, void* dst, const void* src, size_t rows, size_t cols,
                       size_t valid_cols, const float* max, const float* sum);
// e^(x - max) per row with max = max(x) (or max(x, in_max) when in_max != nullptr); writes the
// row max, the row sum of the exponentials (plus e^(in_max - max) in_sum when updating) and
// e^(in_max - max) into exp_max when updating.
void FlashRows(DType t, void* dst, const void* src, size_t rows, size_t cols, size_t valid_cols,
               const float* in_max, const float* in_sum, float* max, float* sum, float* exp_max);
// SoftmaxFlashV3 (softmax.h) on rows of `cols` elements (cols >= 512, a multiple of 64): each
// row is shifted by its split means, then exponentiated as FlashRows with the mean-corrected
// maximum. `in_mean` (with in_max, in_sum) is null without update; writes the row mean, max and
// sum, and e^(in_max - max + shiftPrev) into exp_max when updating.
void FlashV3Rows(DType t, void* dst, const void* src, size_t rows, size_t cols, uint32_t loop_cnt,
                 float alpha, const float* in_mean, const float* in_max, const float* in_sum,
                 float* mean, float* max, float* sum, float* exp_max);
// Row sums of grad * y (front), and dst = (grad - front) * y unless dst == nullptr.
void SoftMaxGradRows(DType t, void* dst, const void* grad, const void* y, size_t rows, size_t cols,
                     size_t valid_cols, float* front);

}  // namespace tessera::compat::adv
