// Host side of AscendQuant / AscendDequant / AscendAntiQuant: temporary-buffer queries. tessera's
// implementations (tessera/compat/kernel/adv/quant.h) convert element by element without
// temporaries, so both report maxValue = minValue = 0 bytes.
#pragma once

#include <cstdint>

#include "tiling/utils/types.h"

namespace AscendC {

inline void GetAscendQuantMaxMinTmpSize(const TensorShape& /*srcShape*/,
                                        const uint32_t /*typeSize*/, uint32_t& maxValue,
                                        uint32_t& minValue) {
  maxValue = 0;
  minValue = 0;
}
inline void GetAscendDequantMaxMinTmpSize(const TensorShape& /*srcShape*/,
                                          const uint32_t /*typeSize*/, uint32_t& maxValue,
                                          uint32_t& minValue) {
  maxValue = 0;
  minValue = 0;
}

inline void GetAscendAntiQuantMaxMinTmpSize(const TensorShape& /*srcShape*/,
                                            const TensorShape& /*scaleShape*/, bool /*isTranspose*/,
                                            TensorDataType /*inputDataType*/,
                                            TensorDataType /*outputDataType*/, uint32_t& maxValue,
                                            uint32_t& minValue) {
  maxValue = 0;
  minValue = 0;
}
inline uint32_t GetAscendAntiQuantMaxTmpSize(const TensorShape& /*srcShape*/,
                                             const TensorShape& /*scaleShape*/,
                                             bool /*isTranspose*/, TensorDataType /*inputDataType*/,
                                             TensorDataType /*outputDataType*/) {
  return 0;
}
inline uint32_t GetAscendAntiQuantMinTmpSize(const TensorShape& /*srcShape*/,
                                             const TensorShape& /*scaleShape*/,
                                             bool /*isTranspose*/, TensorDataType /*inputDataType*/,
                                             TensorDataType /*outputDataType*/) {
  return 0;
}

}  // namespace AscendC
