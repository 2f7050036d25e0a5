// Host side of WelfordUpdate / WelfordFinalize: temporary-buffer queries. tessera's
// implementations (tessera/compat/kernel/adv/welford.h) need no temporaries: 0 bytes.
#pragma once

#include <cstdint>

#include "tiling/utils/types.h"

namespace AscendC {

inline void GetWelfordUpdateMaxMinTmpSize(const TensorShape& /*srcShape*/,
                                          const uint32_t /*typeSizeT*/,
                                          const uint32_t /*typeSizeU*/,
                                          const bool /*isReuseSource*/, const bool /*isInplace*/,
                                          uint32_t& maxValue, uint32_t& minValue) {
  maxValue = 0;
  minValue = 0;
}
inline void GetWelfordFinalizeMaxMinTmpSize(const TensorShape& /*srcShape*/,
                                            const uint32_t /*typeSize*/,
                                            const bool /*isReuseSource*/, uint32_t& maxValue,
                                            uint32_t& minValue) {
  maxValue = 0;
  minValue = 0;
}

}  // namespace AscendC
