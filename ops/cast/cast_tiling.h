// Tiling data of Cast: the elements split over cores in units that keep both the input and the
// output 32-byte aligned (16 elements when either side is 2-byte, else 8).
#pragma once

#include <cstdint>

#include "tessera/tiling/tiling_data.h"

namespace tessera::ops {

BEGIN_TILING_DATA_DEF(CastTilingData)
TILING_DATA_FIELD_DEF(int64_t, blockNum)
TILING_DATA_FIELD_DEF(int64_t, unitNumPerCore)
TILING_DATA_FIELD_DEF(int64_t, moreUnitCoreNum)
TILING_DATA_FIELD_DEF(int64_t, tailNum)
TILING_DATA_FIELD_DEF(int64_t, unitNum)
TILING_DATA_FIELD_DEF(int64_t, tileLength)  // elements per UB tile, whole 32-byte blocks both sides
END_TILING_DATA_DEF;

}  // namespace tessera::ops
