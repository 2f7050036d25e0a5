// Tiling data of the unary elementwise ops (Abs, Exp, Log, Sqrt, Rsqrt, Relu, Sigmoid, Adds, Muls):
// the output's elements split over cores in units of one 32-byte block, streamed in UB tiles.
#pragma once

#include <cstdint>

#include "tessera/tiling/tiling_data.h"

namespace tessera::ops {

BEGIN_TILING_DATA_DEF(UnaryTilingData)
TILING_DATA_FIELD_DEF(int64_t, blockNum)
TILING_DATA_FIELD_DEF(int64_t, unitNumPerCore)
TILING_DATA_FIELD_DEF(int64_t, moreUnitCoreNum)
TILING_DATA_FIELD_DEF(int64_t, tailNum)
TILING_DATA_FIELD_DEF(int64_t, unitNum)
TILING_DATA_FIELD_DEF(int64_t, tileLength)  // elements per UB tile, whole 32-byte blocks
TILING_DATA_FIELD_DEF(float, value)         // Adds/Muls scalar for floating dtypes
TILING_DATA_FIELD_DEF(int64_t, intValue)    // Adds/Muls scalar for int32
END_TILING_DATA_DEF;

}  // namespace tessera::ops
