// Tiling keys of the built-in elementwise ops, shared by tiling functions and kernel entries.
//
// Like Ascend C's DtypeParam, a dtype travels in a key as its raw DataType code (= CANN's
// aclDataType), 8 bits per field, so a key decodes by eye: binary ops pack
// `dtype | broadcast mode << 8`, unary ops `dtype`, Cast `src dtype | dst dtype << 8`.
#pragma once

#include <cstdint>

#include "tessera/core/data_type.h"

namespace tessera::ops {

// Buffers per queue in every elementwise kernel (double buffering); tiling sizes tiles for it.
inline constexpr int32_t kBufferNum = 2;

// How the two inputs of a binary op map onto the output (chosen by the tiling function).
enum class BroadcastMode : uint8_t {
  kSame = 0,      // both inputs have the output's shape: one flat loop
  kScalarX2 = 1,  // x2 holds one element, x1 the output's shape
  kScalarX1 = 2,  // x1 holds one element, x2 the output's shape
  kGeneral = 3,   // numpy broadcasting over rows of the innermost dimension
};

constexpr uint64_t DtypeField(DataType dtype) {
  return static_cast<uint64_t>(dtype);
}

constexpr uint64_t BinaryKey(DataType dtype, BroadcastMode mode) {
  return DtypeField(dtype) | (static_cast<uint64_t>(mode) << 8);
}
constexpr uint64_t UnaryKey(DataType dtype) {
  return DtypeField(dtype);
}
constexpr uint64_t CastKey(DataType src, DataType dst) {
  return DtypeField(src) | (DtypeField(dst) << 8);
}

}  // namespace tessera::ops
