// Host side of the vendor's reductions: the temporary-buffer size queries of ReduceMax /
// ReduceMin / ReduceSum (Pattern AR / RA) and Sum. tessera's implementations
// (tessera/compat/kernel/adv/reduce.h) reduce in registers, so every query reports min = max = 0
// bytes; a kernel may still pass a buffer of any size.
#pragma once

#include <cstdint>

#include "tessera/compat/kernel/adv/detail/reduce_pattern.h"
#include "tiling/utils/types.h"

namespace AscendC {

// Temporary bytes ReduceMax<T, pattern> needs for a 2-D srcShape: maxValue = minValue = 0.
inline void GetReduceMaxMaxMinTmpSize(const TensorShape& /*srcShape*/,
                                      const TensorDataType /*dataType*/, ReducePattern /*pattern*/,
                                      bool /*isSrcInnerPad*/, bool /*isReuseSource*/,
                                      uint32_t& maxValue, uint32_t& minValue) {
  maxValue = 0;
  minValue = 0;
}
// The same for ReduceMin.
inline void GetReduceMinMaxMinTmpSize(const TensorShape& srcShape, const TensorDataType dataType,
                                      ReducePattern pattern, bool isSrcInnerPad, bool isReuseSource,
                                      uint32_t& maxValue, uint32_t& minValue) {
  GetReduceMaxMaxMinTmpSize(srcShape, dataType, pattern, isSrcInnerPad, isReuseSource, maxValue,
                            minValue);
}
// The same for ReduceSum.
inline void GetReduceSumMaxMinTmpSize(const TensorShape& srcShape, const TensorDataType dataType,
                                      ReducePattern pattern, bool isSrcInnerPad, bool isReuseSource,
                                      uint32_t& maxValue, uint32_t& minValue) {
  GetReduceMaxMaxMinTmpSize(srcShape, dataType, pattern, isSrcInnerPad, isReuseSource, maxValue,
                            minValue);
}

// Temporary bytes Sum needs for rows of n elements of typeSize bytes: maxSize = minSize = 0.
inline void GetSumMaxMinTmpSize(const uint32_t /*n*/, const uint32_t /*typeSize*/,
                                const bool /*isReuseSource*/, uint32_t& maxSize,
                                uint32_t& minSize) {
  maxSize = 0;
  minSize = 0;
}

}  // namespace AscendC
