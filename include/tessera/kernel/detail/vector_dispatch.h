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

enum class BinaryOp : uint8_t { kAdd, kSub, kMul, kDiv, kMax, kMin };
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
// Mask + repeat form: `mask` holds the per-repeat element bits (bit j of mask[j / 64]).
void BinaryRepeat(BinaryOp op, DType t, void* dst, const void* a, const void* b,
                  const uint64_t mask[2], uint8_t repeat, const BinaryRepeatParams& p);
// Returns false when `mode` makes no sense for the pair (ODD to int32); nothing is written then.
bool Cast(DType to, DType from, RoundMode mode, void* dst, const void* src, size_t n);
void Compare(CMPMODE mode, DType t, uint8_t* dst, const void* a, const void* b, size_t n);
// b == nullptr selects the scalar `s` (bit pattern of the element type) for cleared bits.
void Select(size_t elem_bytes, void* dst, const uint8_t* mask, const void* a, const void* b,
            uint32_t s, size_t n);
// Reduces each of `rows` rows of `cols` elements into dst[r * dst_step] (and the index, as the
// element type's bit pattern, into the element after it when `with_index`).
void Reduce(ReduceOp op, DType t, void* dst, size_t dst_step, const void* src, size_t rows,
            size_t cols, bool with_index);
void SoftMax(DType t, void* dst, const void* src, size_t rows, size_t cols);

}  // namespace tessera::kernel::vec
