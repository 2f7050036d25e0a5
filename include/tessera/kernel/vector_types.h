// Public enums and parameter structs of the vector instructions, with Ascend C names and values.
#pragma once

#include <cstdint>

namespace tessera::kernel {

// Rounding of Cast. NONE is the conversion's natural rounding: round to nearest even where
// precision is lost, exact otherwise. ROUND is round half away from zero; ODD is round to odd
// (truncate, then set the last bit if anything was cut off; used before a second narrowing).
enum class RoundMode : uint8_t {
  CAST_NONE = 0,
  CAST_RINT,
  CAST_FLOOR,
  CAST_CEIL,
  CAST_ROUND,
  CAST_TRUNC,
  CAST_ODD,
};

// The reduction of ReduceRepeat / ReduceDataBlock / ReducePairElem (values as in Ascend C).
enum class ReduceType : int8_t { NONE = -1, SUM = 0, MAX, MIN };
// What ReduceRepeat's MAX / MIN writes per repeat: value then index, index then value, the value
// only, or the index only (the index as a uint32). SUM writes the value whatever the order.
enum class ReduceOrder : uint8_t {
  ORDER_VALUE_INDEX = 0,
  ORDER_INDEX_VALUE,
  ORDER_ONLY_VALUE,
  ORDER_ONLY_INDEX
};

// Predicate of Compare. Any comparison with NaN is false except NE, as in IEEE 754.
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };

// Operand kind of Select (values as in Ascend C). CMPMASK_SPR: two tensors, the mask's first
// 256 / sizeof(T) bits reused for every 256-byte repeat; TENSOR_TENSOR: two tensors, a mask bit
// per element; TENSOR_SCALAR: a tensor and a scalar, a bit per element.
enum class SELMODE : uint8_t {
  VSEL_CMPMASK_SPR = 0,
  VSEL_TENSOR_SCALAR_MODE = 1,
  VSEL_TENSOR_TENSOR_MODE = 2
};

// Addressing of the mask + repeat form of binary instructions. One repeat covers 256 bytes as
// 8 blocks of 32 bytes; block strides count 32-byte blocks between consecutive blocks of one
// repeat, repeat strides count 32-byte blocks between the starts of consecutive repeats.
struct BinaryRepeatParams {
  uint8_t dstBlkStride = 1;
  uint8_t src0BlkStride = 1;
  uint8_t src1BlkStride = 1;
  uint8_t dstRepStride = 8;
  uint8_t src0RepStride = 8;
  uint8_t src1RepStride = 8;
};

// Addressing of the mask + repeat form of unary instructions (Ascend C's field order:
// dstBlkStride, srcBlkStride, dstRepStride, srcRepStride).
struct UnaryRepeatParams {
  uint16_t dstBlkStride = 1;
  uint16_t srcBlkStride = 1;
  uint8_t dstRepStride = 8;
  uint8_t srcRepStride = 8;
};

// Addressing of Copy (UB -> UB): block strides, then repeat strides, all in 32-byte blocks.
struct CopyRepeatParams {
  uint16_t dstStride = 1;
  uint16_t srcStride = 1;
  uint16_t dstRepeatSize = 8;
  uint16_t srcRepeatSize = 8;
};

// Addressing of Brcb's destination: 32-byte blocks between the blocks of one repeat and between
// the starts of consecutive repeats.
struct BrcbRepeatParams {
  uint16_t dstBlkStride = 1;
  uint16_t dstRepStride = 8;
};

// How the vector mask register is read: NORMAL = a bit per element of each repeat; COUNTER = the
// number of elements of the whole instruction (repeats follow from it).
enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };

// The mask argument of an instruction called with isSetMask = false, which takes the mask
// register (set by SetVectorMask) instead.
inline constexpr uint64_t MASK_PLACEHOLDER = 0;

// The compile-time configuration of the tensor-scalar instructions' template form
// (`Ors<BinaryDefaultType, true, config>`). scalarTensorIndex names the operand that is the
// scalar; tessera's tensor-scalar forms take the scalar as the second operand only.
struct BinaryConfig {
  int8_t scalarTensorIndex = 1;
};
inline constexpr BinaryConfig DEFAULT_BINARY_CONFIG = {1};
// The element-type placeholder of the template forms: deduce the type from the operands.
struct BinaryDefaultType {};

}  // namespace tessera::kernel
