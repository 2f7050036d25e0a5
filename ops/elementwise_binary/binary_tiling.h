// Tiling data of the binary elementwise ops (Add, Sub, Mul, Div, Maximum, Minimum).
//
// Flat modes (BroadcastMode kSame, kScalarX1, kScalarX2) split the output's elements over cores in
// units of one 32-byte block. The general mode splits the output's rows (the innermost dimension
// after coalescing) over cores; a row's input offsets come from per-dimension element strides that
// are 0 along broadcast dimensions.
#pragma once

#include <cstdint>

#include "tessera/tiling/tiling_data.h"

namespace tessera::ops {

inline constexpr int kBinaryMaxRank = 8;

BEGIN_TILING_DATA_DEF(BinaryTilingData)
TILING_DATA_FIELD_DEF(int64_t, blockNum)
TILING_DATA_FIELD_DEF(int64_t, unitNumPerCore)
TILING_DATA_FIELD_DEF(int64_t, moreUnitCoreNum)
TILING_DATA_FIELD_DEF(int64_t, tailNum)
TILING_DATA_FIELD_DEF(int64_t, unitNum)
TILING_DATA_FIELD_DEF(int64_t, tileLength)  // elements per UB tile, whole 32-byte blocks
TILING_DATA_FIELD_DEF(int64_t, x1Numel)     // element counts (GM extents)
TILING_DATA_FIELD_DEF(int64_t, x2Numel)
TILING_DATA_FIELD_DEF(int64_t, yNumel)
TILING_DATA_FIELD_DEF(int64_t, rank)         // general mode: coalesced rank, 1..8
TILING_DATA_FIELD_DEF(int64_t, rowLength)    // general mode: outDims[rank - 1]
TILING_DATA_FIELD_DEF(int64_t, rowsPerTile)  // general mode: whole rows per tile (1 if chunked)
TILING_DATA_FIELD_DEF_ARR(int64_t, kBinaryMaxRank, outDims)
TILING_DATA_FIELD_DEF_ARR(int64_t, kBinaryMaxRank, x1Strides)  // 0 along broadcast dims
TILING_DATA_FIELD_DEF_ARR(int64_t, kBinaryMaxRank, x2Strides)
END_TILING_DATA_DEF;

}  // namespace tessera::ops
