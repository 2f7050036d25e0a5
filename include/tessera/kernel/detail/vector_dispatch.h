// Internal ABI between the vector-instruction templates in vector.h and their Highway
// implementations in src/kernel/vector (one dynamically dispatched entry per family).
//
// Pointers are raw element pointers; counts are element counts already validated by the caller.
// Nothing here checks arguments: the public templates do that in checked mode.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tessera/core/float16.h"
#include "tessera/kernel/vector_types.h"

namespace tessera::kernel::vec {

enum class DType : uint8_t { kF32, kF16, kBF16, kI32 };

template <class T>
inline constexpr bool kIsFloatType =
    std::is_same_v<T, float> || std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;
template <class T>
inline constexpr bool kIsVectorType = kIsFloatType<T> || std::is_same_v<T, int32_t>;

template <class T>
constexpr DType DTypeOf() {
  if constexpr (std::is_same_v<T, float>) return DType::kF32;
  if constexpr (std::is_same_v<T, half>) return DType::kF16;
  if constexpr (std::is_same_v<T, bfloat16>) return DType::kBF16;
  return DType::kI32;
}

// kAddRelu / kSubRelu: max(a op b, 0), one rounding (the sum is rounded, then clamped).
enum class BinaryOp : uint8_t { kAdd, kSub, kMul, kDiv, kMax, kMin, kAddRelu, kSubRelu };
enum class ScalarOp : uint8_t { kAdds, kMuls, kMaxs, kMins, kLeakyRelu };
enum class UnaryOp : uint8_t {
  kAbs,
  kExp,
  kLn,
  kSqrt,
  kRsqrt,
  kReciprocal,
  kRelu,
  kSigmoid,
  kTanh,
  kGelu,
  kGeluErf,
  kSilu,
};
enum class ReduceOp : uint8_t { kSum, kMax, kMin };

// A scalar operand: `f` for the floating types (half/bfloat16 scalars widened exactly), `i` for
// int32.
union Scalar {
  float f;
  int32_t i;
};

void Binary(BinaryOp op, DType t, void* dst, const void* a, const void* b, size_t n);
void BinaryScalar(ScalarOp op, DType t, void* dst, const void* src, Scalar s, size_t n);
void Unary(UnaryOp op, DType t, void* dst, const void* src, size_t n);
// Returns false when `mode` makes no sense for the pair (ODD to int32); nothing is written then.
bool Cast(DType to, DType from, RoundMode mode, void* dst, const void* src, size_t n);
// int8/uint8 -> half (exact) and half -> int8/uint8 (rounded by `mode`, saturated to the byte
// type's range, NaN gives 0). Returns false for CAST_ODD to a byte type; nothing is written then.
void CastByteToHalf(bool is_signed, half* dst, const void* src, size_t n);
bool CastHalfToByte(bool is_signed, RoundMode mode, void* dst, const half* src, size_t n);
// half -> int4b_t values (-8..7, one per int8; packing is the caller's), as CastHalfToByte.
bool CastHalfToInt4(RoundMode mode, int8_t* dst, const half* src, size_t n);
// int16 Add/Sub/Mul/Max/Min, wrapping modulo 2^16 (the other ops are not defined for int16).
void BinaryI16(BinaryOp op, int16_t* dst, const int16_t* a, const int16_t* b, size_t n);
void Compare(CMPMODE mode, DType t, uint8_t* dst, const void* a, const void* b, size_t n);
// b == nullptr selects the scalar `s` (bit pattern of the element type) for cleared bits.
void Select(size_t elem_bytes, void* dst, const uint8_t* mask, const void* a, const void* b,
            uint32_t s, size_t n);
// Reduces each of `rows` rows of `cols` elements into dst[r * dst_step] (and the index, as the
// element type's bit pattern, into the element after it when `with_index`).
void Reduce(ReduceOp op, DType t, void* dst, size_t dst_step, const void* src, size_t rows,
            size_t cols, bool with_index);
void SoftMax(DType t, void* dst, const void* src, size_t rows, size_t cols);

// dst[j] = src[2j] + src[2j + 1] for j < pairs (float, half, bfloat16: fp32 sum, rounded once).
void PairSum(DType t, void* dst, const void* src, size_t pairs);
// dst[i] = (src[i] op s) bit i for i < n, as Compare with a broadcast second operand.
void CompareScalar(CMPMODE mode, DType t, uint8_t* dst, const void* a, Scalar s, size_t n);
// dst[i] = dst[i] + src[i] * s (fp32 multiply and add, 16-bit types rounded once at the end).
void Axpy(DType t, void* dst, const void* src, Scalar s, size_t n);

// Integer instructions on 2- or 4-byte elements (any signedness: bitwise ops ignore it; shifts
// right are arithmetic when `is_signed`).
enum class BitOp : uint8_t { kAnd, kOr };
enum class ShiftOp : uint8_t { kLeft, kRight };
// b == nullptr: the scalar `s` (low elem_bytes bytes) for every element.
void Bitwise(BitOp op, size_t elem_bytes, void* dst, const void* a, const void* b, uint32_t s,
             size_t n);
void BitwiseNot(size_t elem_bytes, void* dst, const void* src, size_t n);
// By `bits` < 8 * elem_bytes for every element, or by amounts[i] (same width, taken as unsigned:
// an amount of 8 * elem_bytes or more shifts every bit out).
void Shift(ShiftOp op, size_t elem_bytes, bool is_signed, void* dst, const void* src,
           const void* amounts, uint32_t bits, size_t n);
// dst[i] = first + i: int16/int32 (wrapping) when !is_float, else half/float (computed in fp32,
// rounded once). `first` is Scalar::i for integers, Scalar::f for floats.
void Iota(size_t elem_bytes, bool is_float, void* dst, Scalar first, size_t n);

}  // namespace tessera::kernel::vec
