// Host side of DropOut and Select (byte mask): temporary-buffer queries. tessera's
// implementations (tessera/compat/kernel/adv/filter.h) need no temporaries: 0 bytes.
#pragma once

#include <cstdint>

#include "tiling/utils/types.h"

namespace AscendC {

inline void GetDropOutMaxMinTmpSize(const TensorShape& /*srcShape*/, const uint32_t /*typeSize*/,
                                    const bool /*isReuseSource*/, uint32_t& maxValue,
                                    uint32_t& minValue) {
  maxValue = 0;
  minValue = 0;
}

// Select with a byte mask: temporary bytes (0 for tessera's Select).
inline void GetSelectMaxMinTmpSize(const TensorShape& /*src0Shape*/,
                                   const TensorShape& /*src1Shape*/, const uint32_t /*srcTypeSize*/,
                                   const TensorShape& /*maskShape*/,
                                   const uint32_t /*maskTypeSize*/, const bool /*isReuseMask*/,
                                   uint32_t& maxValue, uint32_t& minValue) {
  maxValue = 0;
  minValue = 0;
}
inline void GetSelectWithBytesMaskMaxMinTmpSize(const TensorShape& src0Shape,
                                                const TensorShape& src1Shape,
                                                const uint32_t srcTypeSize,
                                                const TensorShape& maskShape,
                                                const uint32_t maskTypeSize, const bool isReuseMask,
                                                uint32_t& maxValue, uint32_t& minValue) {
  GetSelectMaxMinTmpSize(src0Shape, src1Shape, srcTypeSize, maskShape, maskTypeSize, isReuseMask,
                         maxValue, minValue);
}

}  // namespace AscendC
