// Host side of the sort family: the temporary-buffer query. tessera sorts in host memory of its
// own (tessera/compat/kernel/adv/sort.h), so it reports maxValue = minValue = 0 bytes.
#pragma once

#include <cstdint>

#include "tessera/compat/vendor/tiling/sort/sort_config.h"
#include "tiling/utils/types.h"

namespace AscendC {

inline void GetSortMaxMinTmpSize(const TensorShape& /*srcShape*/, TensorDataType /*valueType*/,
                                 TensorDataType /*indexType*/, bool /*isReuseSource*/,
                                 const SortConfig& /*config*/, uint32_t& maxValue,
                                 uint32_t& minValue) {
  maxValue = 0;
  minValue = 0;
}

}  // namespace AscendC
