// Tiling keys of the built-in elementwise ops, shared by tiling functions and kernel entries.
//
// Like Ascend C's DtypeParam, a dtype travels in a key as its raw DataType code (= CANN's
// aclDataType), 8 bits per field, so a key decodes by eye: unary and binary ops (and the row
// ops) are `dtype`, Cast `src dtype | dst dtype << 8`.
#pragma once

#include <cstdint>

#include "tessera/core/data_type.h"

namespace tessera::ops {

constexpr uint64_t DtypeField(DataType dtype) {
  return static_cast<uint64_t>(dtype);
}

constexpr uint64_t UnaryKey(DataType dtype) {
  return DtypeField(dtype);
}
constexpr uint64_t CastKey(DataType src, DataType dst) {
  return DtypeField(src) | (DtypeField(dst) << 8);
}

}  // namespace tessera::ops
