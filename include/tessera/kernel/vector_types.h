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

// Predicate of Compare. Any comparison with NaN is false except NE, as in IEEE 754.
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };

// Operand kind of Select (values as in Ascend C; the register-mask mode is not provided).
enum class SELMODE : uint8_t { VSEL_TENSOR_SCALAR_MODE = 1, VSEL_TENSOR_TENSOR_MODE = 2 };

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

}  // namespace tessera::kernel
